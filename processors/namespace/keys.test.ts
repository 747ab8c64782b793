// ClaimList (scan while small) must answer exactly like KeySpace (prefix sets), below and above its switch-over.
import { describe, expect, it } from 'vitest';
import { ClaimList, KeySpace } from './keys.ts';

const SEGMENTS = ['ag', 'a', 'ab', 'b', '', '0', 'meta', 'request', 'model'];

function key(r: () => number): string {
  const n = 1 + Math.floor(r() * 4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(SEGMENTS[Math.floor(r() * SEGMENTS.length)]);
  return parts.join('.');
}

describe('ClaimList', () => {
  it('agrees with KeySpace on at, above and below', () => {
    let s = 42;
    const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    let conflicts = 0;
    for (let round = 0; round < 300; round++) {
      const list = new ClaimList();
      const space = new KeySpace();
      const n = Math.floor(r() * 40); // crosses the switch to a KeySpace
      for (let i = 0; i < n; i++) { const k = key(r); list.add(k); space.add(k); }
      for (let i = 0; i < 20; i++) {
        const t = key(r);
        expect(list.conflicts(t)).toBe(space.conflicts(t));
        if (space.conflicts(t)) conflicts++;
      }
    }
    expect(conflicts).toBeGreaterThan(100);
  });

  it('answers the same when one list is cleared and reused (stale entries and KeySpace left behind)', () => {
    let s = 7;
    const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    const list = new ClaimList();
    let conflicts = 0;
    let free = 0;
    for (let round = 0; round < 300; round++) {
      list.clear();
      const space = new KeySpace();
      // Long lists switch to a KeySpace, short ones follow them, so both leftovers are exercised.
      const n = round % 3 === 0 ? 30 + Math.floor(r() * 10) : Math.floor(r() * 6);
      for (let i = 0; i < n; i++) { const k = key(r); list.add(k); space.add(k); }
      for (let i = 0; i < 20; i++) {
        const t = key(r);
        expect(list.conflicts(t)).toBe(space.conflicts(t));
        if (space.conflicts(t)) conflicts++;
        else free++;
      }
    }
    expect(conflicts).toBeGreaterThan(100);
    expect(free).toBeGreaterThan(100);
  });

  it('checks segment boundaries', () => {
    const list = new ClaimList();
    list.add('ag.meta.request.model');
    expect(list.conflicts('ag.meta.request')).toBe(true);
    expect(list.conflicts('ag.meta.request.model.x')).toBe(true);
    expect(list.conflicts('ag.meta.req')).toBe(false);
    expect(list.conflicts('ag.meta.request.modelx')).toBe(false);
  });
});
