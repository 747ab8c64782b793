import { describe, expect, it } from 'vitest';
import type { WorkingBatch } from '../../model/batch.ts';
import { createLogger } from '../../pipeline/log.ts';
import { factory } from './factory.ts';

const ctx = { id: 'flatten', logger: createLogger({ write: () => {} }) };

describe('flatten processor', () => {
  it('factory shape: processor, empty object schema without keys', () => {
    expect(factory.type).toBe('flatten');
    expect(factory.kind).toBe('processor');
    expect(factory.schema).toMatchObject({ type: 'object', additionalProperties: false, properties: {} });
    expect(factory.create({}, ctx).sync).toBe(true);
  });

  it('flat form: one draft per entry', () => {
    const batch: WorkingBatch = { origin: 'tracing', tracing: { form: 'flat', spans: [{ a: 1 }, 'x'] }, spans: [], rejections: [] };
    factory.create({}, ctx).process(batch);
    expect(batch.drafts?.map((d) => [d.index, d.path, d.value, d.parent])).toEqual([
      [0, 'spans[0]', { a: 1 }, undefined],
      [1, 'spans[1]', 'x', undefined],
    ]);
  });

  it('tree form: pre-order drafts with parents', () => {
    const batch: WorkingBatch = {
      origin: 'tracing',
      tracing: { form: 'tree', traces: { k: { spans: { a: { spans: { b: {} } }, c: [{}] } } } },
      spans: [],
      rejections: [],
    };
    factory.create({}, ctx).process(batch);
    expect(batch.drafts?.map((d) => [d.path, d.nodeName, d.parent, d.traceKey])).toEqual([
      ['traces.k.spans.a', 'a', undefined, 'k'],
      ['traces.k.spans.a.spans.b', 'b', 0, undefined],
      ['traces.k.spans.c[0]', 'c', undefined, 'k'],
    ]);
  });

  it('a batch without a tracing body (OTLP) is left alone', () => {
    const batch: WorkingBatch = { origin: 'otlp', spans: [], rejections: [] };
    factory.create({}, ctx).process(batch);
    expect(batch.drafts).toBeUndefined();
  });
});
