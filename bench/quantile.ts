// One way to read a quantile off the bench's latency samples, so every row means the same by p50 and p99.

/** The sample at quantile `q` (0..1) of `sorted` (ascending): index floor(q * n), the largest for q = 1;
 *  undefined when there are no samples. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
