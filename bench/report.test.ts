import { describe, expect, it } from 'vitest';
import { formatReport, median, medianRows, ratioValues } from './report.ts';
import type { Row } from './scenarios.ts';
import type { Measurement } from './target.ts';

function measured(spansPerSecond: number, cpuPerMillion: number, p99: number): Measurement {
  return {
    load: { requests: 1, non2xx: 0, errors: 0, spansAccepted: 1, seconds: 1, spansPerSecond, latencyMs: { p50: 1, p99, max: p99 }, statuses: {} },
    cpuSeconds: 1, cpuPerMillion, coreShare: 1, rssMiB: 100, peakRssMiB: 120,
  };
}

function round(ours: [number, number, number], theirs: [number, number, number]): Row[] {
  return [
    { scenario: 'otlp-proto', target: 'tracehop', measurement: measured(...ours) },
    { scenario: 'otlp-proto', target: 'otelcol', measurement: measured(...theirs) },
  ];
}

describe('bench report', () => {
  it('median of odd and even counts, ignoring non-finite values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, Infinity, Number.NaN])).toBe(5);
    expect(median([])).toBeNaN();
  });

  it('ratios are taken within a round, then their median and range across rounds', () => {
    // Round 2 ran on a slow minute for both peers: its figures drop, its ratio does not.
    const rounds = [round([60, 20, 80], [80, 15, 100]), round([30, 40, 160], [40, 30, 200]), round([66, 18, 70], [88, 13, 90])];
    const cpu = rounds.map((r) => ratioValues(r).find((x) => x.label.includes('CPU-seconds'))!.value);
    expect(cpu).toEqual([0.75, 0.75, 13 / 18]);
    const text = formatReport(rounds, { pinned: true, durationMs: 10_000 });
    expect(text).toContain('3 rounds');
    expect(text).toMatch(/\| otlp-proto: otelcol \/ tracehop CPU-seconds per M spans \(higher = tracehop cheaper\) \| 0\.75 \| 0\.72-0\.75 \|/);
    // The table shows per-figure medians: tracehop's spans/s 30, 60, 66 -> 60.
    expect(medianRows(rounds)[0].measurement!.load.spansPerSecond).toBe(60);
    expect(medianRows(rounds)[1].measurement!.cpuPerMillion).toBe(15);
  });

  it('one round prints plain values', () => {
    const text = formatReport([round([60, 20, 80], [80, 15, 100])], { pinned: false, durationMs: 5_000 });
    expect(text).toContain('| ratio | value |');
    expect(text).toContain('| otlp-proto: tracehop / otelcol spans/s | 0.75 |');
    expect(text).toContain('NOT pinned');
    expect(text).not.toContain('rounds');
  });

  it('--cpus all: workers N against workers 1 and against the Collector, within the round', () => {
    const rows: Row[] = [
      { scenario: 'otlp-proto-cpus-all', target: 'tracehop (workers: 1)', measurement: measured(100, 8, 10) },
      { scenario: 'otlp-proto-cpus-all', target: 'tracehop (workers: 2)', measurement: measured(170, 8.5, 10) },
      { scenario: 'otlp-proto-cpus-all', target: 'otelcol', measurement: measured(100, 12.75, 10) },
    ];
    const ratios = Object.fromEntries(ratioValues(rows).map((r) => [r.label, r.value]));
    expect(ratios['otlp-proto-cpus-all: tracehop (workers: 2) / tracehop (workers: 1) spans/s']).toBeCloseTo(1.7);
    expect(ratios['otlp-proto-cpus-all: tracehop (workers: 2) / otelcol spans/s']).toBeCloseTo(1.7);
    expect(ratios['otlp-proto-cpus-all: otelcol / tracehop (workers: 2) CPU-seconds per M spans (higher = tracehop cheaper)']).toBeCloseTo(1.5);
    expect(formatReport([rows], { pinned: false, durationMs: 10_000, cpus: 'all' })).toContain('sharing all CPUs (--cpus all)');
  });

  it('durable against memory on both loads issue 26 names, each within its round', () => {
    const rows: Row[] = [
      { scenario: 'otlp-proto', target: 'tracehop', measurement: measured(100, 8, 10) },
      { scenario: 'otlp-proto-durable', target: 'tracehop', measurement: measured(80, 10, 15) },
      { scenario: 'durable-vs-memory', target: 'tracehop (storage {type: disk, directory: DIR/stream, fsync: always})', measurement: measured(70, 11, 20) },
      { scenario: 'durable-vs-memory', target: 'tracehop (storage memory)', measurement: measured(100, 8.8, 10) },
    ];
    const ratios = Object.fromEntries(ratioValues(rows).map((r) => [r.label, r.value]));
    expect(ratios['agenta-flat: durable (fsync always) / memory spans/s']).toBeCloseTo(0.7);
    expect(ratios['agenta-flat: durable / memory CPU-seconds per M spans (lower = durable cheaper)']).toBeCloseTo(1.25);
    expect(ratios['agenta-flat: durable / memory p99 latency']).toBeCloseTo(2);
    expect(ratios['otlp-proto: durable (fsync always) / memory spans/s']).toBeCloseTo(0.8);
    expect(ratios['otlp-proto: durable / memory CPU-seconds per M spans (lower = durable cheaper)']).toBeCloseTo(1.25);
    // otlp-proto-durable has no Collector row here: no tracehop / otelcol ratio is made up for it.
    expect(Object.keys(ratios).some((label) => label.startsWith('otlp-proto-durable: tracehop / otelcol'))).toBe(false);
  });
});
