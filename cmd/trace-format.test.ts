// The printing of `tracehop traces` / `trace`: durations in a scannable form, nanosecond times, and the
// sibling order rebuilt from the spans (a span named `2` is not moved first by JSON's key order).
import { describe, expect, it } from 'vitest';
import { formatDuration, formatTraceTree, type SpanMap } from './trace-format.ts';
import { parseTimestamp } from '../model/time.ts';

describe('trace printing', () => {
  it('formats durations with at most three significant digits', () => {
    const cases: [bigint, string][] = [
      [0n, '0µs'], [850_000n, '850µs'], [1_500n, '1.5µs'], [1_234_567n, '1.23ms'], [12_500_000n, '12.5ms'], [400_000_000n, '400ms'],
      [1_500_000_000n, '1.5s'], [12_340_000_000n, '12.3s'], [123_000_000_000n, '2m03s'], [7_380_000_000_000n, '2h03m'],
    ];
    expect(cases.map(([ns]) => formatDuration(ns))).toEqual(cases.map(([, text]) => text));
  });

  it('reads record times to the nanosecond', () => {
    expect(parseTimestamp('2026-01-01T00:00:01.000000007Z')! - parseTimestamp('2026-01-01T00:00:01Z')!).toBe(7n);
    expect(parseTimestamp('1970-01-01T00:00:02.5Z')).toBe(2_500_000_000n);
  });

  it('orders siblings by start time, then span id, whatever the order of the map keys', () => {
    const span = (id: string, name: string, start: string) => ({
      trace_id: 'a'.repeat(32), span_id: id, parent_id: '1'.repeat(16), span_name: name, start_time: start, end_time: start,
    });
    // JSON.parse puts the integer-like key `2` first; it started last.
    const spans = JSON.parse(JSON.stringify({
      root: { ...span('1'.repeat(16), 'root', '2026-01-01T00:00:00Z'), parent_id: undefined, spans: {
        b: [span('00000000000000b2', 'b', '2026-01-01T00:00:01Z'), span('00000000000000b1', 'b', '2026-01-01T00:00:01Z')],
        2: span('0000000000000002', '2', '2026-01-01T00:00:03Z'),
        a: span('000000000000000a', 'a', '2026-01-01T00:00:02Z'),
      } },
    })) as SpanMap;
    expect(Object.keys((spans.root as { spans: SpanMap }).spans)).toEqual(['2', 'b', 'a']);
    expect(formatTraceTree('a'.repeat(32), spans).split('\n').slice(1).map((l) => l.trim().split(' ')[0])).toEqual(['root', 'b', 'b', 'a', '2', '']);
  });
});
