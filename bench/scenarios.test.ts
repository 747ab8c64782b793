import { describe, expect, it } from 'vitest';
import { secondPeerFirst } from './scenarios.ts';

describe('bench pairs', () => {
  it('the second peer (the Collector) goes first in every second round, so neither peer always runs first', () => {
    const order = [1, 2, 3, 4, 5, 6].map(secondPeerFirst);
    expect(order).toEqual([false, true, false, true, false, true]);
  });
});
