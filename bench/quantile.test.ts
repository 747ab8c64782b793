import { describe, expect, it } from 'vitest';
import { quantile } from './quantile.ts';

describe('bench quantile', () => {
  it('reads the sample at floor(q * n), the largest for 1, nothing from no samples', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(51);
    expect(quantile(sorted, 0.99)).toBe(100);
    expect(quantile(sorted, 1)).toBe(100);
    expect(quantile([], 0.5)).toBeUndefined();
  });
});
