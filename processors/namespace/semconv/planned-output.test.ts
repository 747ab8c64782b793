import { describe, expect, it } from 'vitest';
import type { AttrValue } from '../../../model/span.ts';
import { pickWith as pick, seededRandom } from '../../../test/helpers/random.ts';
import { PlannedOutput } from './planned-output.ts';

// PlannedOutput stands in for a Map as the output of a planned family: get/has/set, size, order and
// its keys and values must answer as a Map given the same calls would, including a set on a key already present.

const KEYS = ['ag.meta.a', 'ag.meta.b', 'ag.type.span', 'ag.data.inputs.q', 'x', ''];
const VALUES: AttrValue[] = ['v', '@ag.type=none:', null, 1, 2n, true, ['a']];

describe('PlannedOutput', () => {
  it('answers like a Map for random get/has/set sequences, reused after clear()', () => {
    const r = seededRandom(4303);
    const out = new PlannedOutput();
    for (let round = 0; round < 300; round++) {
      out.clear();
      const map = new Map<string, AttrValue>();
      const steps = Math.floor(r() * 12);
      for (let s = 0; s < steps; s++) {
        // Keys built at run time too, so equal keys are not always the same string instance.
        const key = r() < 0.5 ? pick(r, KEYS) : ['ag', 'meta', pick(r, ['a', 'b'])].join('.');
        const x = r();
        if (x < 0.5) {
          const v = pick(r, VALUES);
          out.set(key, v);
          map.set(key, v);
        } else if (x < 0.75) expect(out.get(key)).toBe(map.get(key));
        else expect(out.has(key)).toBe(map.has(key));
      }
      expect(out.size).toBe(map.size);
      expect(out.keys.slice(0, out.size).map((k, i) => [k, out.values[i]])).toEqual([...map]);
      expect(out.keys.slice(0, out.size)).toEqual([...map.keys()]);
      expect(out.anyTyped()).toBe([...map.values()].some((v) => typeof v === 'string' && v.startsWith('@ag.type=')));
    }
  });

  it('anyBelow finds a key strictly below a prefix, and append adds members in order', () => {
    const out = new PlannedOutput();
    out.append('ag.data.inputs', 'x');
    expect(out.anyBelow('ag.data.inputs.')).toBe(false);
    out.append('ag.data.inputsx', 1);
    expect(out.anyBelow('ag.data.inputs.')).toBe(false);
    out.append('ag.data.inputs.prompt.0.content', 'hi');
    expect(out.anyBelow('ag.data.inputs.')).toBe(true);
    expect(out.anyBelow('ag.data.inputs.prompt.0.content.')).toBe(false);
    expect(out.keys.slice(0, out.size)).toEqual(['ag.data.inputs', 'ag.data.inputsx', 'ag.data.inputs.prompt.0.content']);
    out.clear();
    expect(out.anyBelow('ag.data.inputs.')).toBe(false);
  });
});
