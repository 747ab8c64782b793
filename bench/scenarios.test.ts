import { describe, expect, it } from 'vitest';
import { collectorFirst } from './scenarios.ts';

describe('bench pairs', () => {
  it('the Collector goes first in every second round, so neither peer always runs first', () => {
    const order = [1, 2, 3, 4, 5, 6].map(collectorFirst);
    expect(order).toEqual([false, true, false, true, false, true]);
  });
});
