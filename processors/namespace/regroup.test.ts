import { describe, expect, it } from 'vitest';
import { regroup } from './regroup.ts';

describe('regroup', () => {
  const ROOT = 'ag.meta';

  it('puts every key beside the others below its node, nodes in order of first appearance', () => {
    const keys = ['x', 'ag.meta.b.1', 'ag.meta.a', 'ag.meta.b.2', 'ag.meta.c.d.e', 'ag.meta.a2', 'ag.meta.c.f', 'ag.meta.c.d.g'];
    const bucket = [1, 2, 3, 4, 5, 6, 7];
    expect(regroup(keys, bucket, bucket.length, ROOT.length)).toBe(true);
    expect(bucket.map((i) => keys[i])).toEqual([
      'ag.meta.b.1', 'ag.meta.b.2', 'ag.meta.a', 'ag.meta.c.d.e', 'ag.meta.c.d.g', 'ag.meta.c.f', 'ag.meta.a2',
    ]);
  });

  it('keeps a key ending at a node before the keys below it, and the root itself first', () => {
    const keys = ['ag.meta.a.b', 'ag.meta', 'ag.meta.a'];
    const bucket = [0, 1, 2];
    expect(regroup(keys, bucket, 3, ROOT.length)).toBe(true);
    expect(bucket.map((i) => keys[i])).toEqual(['ag.meta', 'ag.meta.a', 'ag.meta.a.b']);
  });

  it('gives up, leaving the bucket as it was, on a key of more than 32 segments below the root', () => {
    const keys = ['ag.meta.z', 'ag.meta.' + Array.from({ length: 33 }, (_, i) => `s${i}`).join('.')];
    const bucket = [1, 0];
    expect(regroup(keys, bucket, 2, ROOT.length)).toBe(false);
    expect(bucket).toEqual([1, 0]);
  });
});
