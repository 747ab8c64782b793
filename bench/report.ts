// The markdown table: absolute figures for context, ratios against the peer measured in the same run for
// the claims.
import type { Row } from './scenarios.ts';
import type { Measurement } from './target.ts';

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

/**
 * The report of one or more rounds (each round ran every selected scenario once, so the peers of a
 * scenario alternate in time). With several rounds each figure of the table is the median over the rounds
 * and each ratio the median of the per-round ratios, with its range: on a shared machine one round can
 * land on a noisy minute, and a ratio of two neighbours in time is steadier than either figure.
 */
export function formatReport(rounds: Row[][], meta: { pinned: boolean; durationMs: number; cpus?: 'pinned' | 'all' }): string {
  const n = rounds.length;
  const placement = meta.cpus === 'all'
    ? 'every process (daemon, its workers, load generator) sharing all CPUs (--cpus all); CPU and RSS of a daemon include its workers'
    : `daemon and load generator ${meta.pinned ? 'pinned to different CPUs (taskset)' : 'NOT pinned (taskset unavailable or one CPU)'}`;
  const lines = [
    `Duration ${meta.durationMs / 1000}s per run${n > 1 ? `, ${n} rounds (medians; ratios: median of per-round ratios, with their range)` : ''}; ${placement}; 100 spans per request, 8 connections.`,
    '',
    '| scenario | target | spans/s | p50 ms | p99 ms | max ms | non-2xx | CPU s / M spans | core share | mean RSS MiB | peak RSS MiB | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of medianRows(rounds)) {
    const m = r.measurement;
    if (m) {
      lines.push(`| ${r.scenario} | ${r.target} | ${f0(m.load.spansPerSecond)} | ${f2(m.load.latencyMs.p50)} | ${f2(m.load.latencyMs.p99)} | ${f1(m.load.latencyMs.max)} | ${f0(m.load.non2xx + m.load.errors)} | ${f2(m.cpuPerMillion)} | ${f2(m.coreShare)} | ${f0(m.rssMiB)} | ${f0(m.peakRssMiB)} | ${drainNote(m.drainSeconds, r.note)} |`);
    } else {
      lines.push(`| ${r.scenario} | ${r.target} | ${r.spansPerSecond ? f0(r.spansPerSecond) : '-'} | | | | | | | | | ${r.note ?? ''} |`);
    }
  }
  const ratios = combinedRatios(rounds.map(ratioValues));
  if (ratios.length) {
    lines.push('', n > 1 ? '| ratio | median | range |' : '| ratio | value |', n > 1 ? '|---|---:|---|' : '|---|---:|');
    for (const r of ratios) lines.push(n > 1 ? `| ${r.label} | ${f2(r.median)} | ${f2(r.min)}-${f2(r.max)} |` : `| ${r.label} | ${f2(r.median)} |`);
  }
  return lines.join('\n');
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One row per (scenario, target) in first-round order, each figure the median over the rounds. */
export function medianRows(rounds: Row[][]): Row[] {
  if (rounds.length === 1) return rounds[0];
  return rounds[0].map((first) => {
    const same = rounds.flatMap((rows) => rows.filter((r) => r.scenario === first.scenario && r.target === first.target));
    const ms = same.map((r) => r.measurement).filter((m) => m !== undefined);
    const rates = same.map((r) => r.spansPerSecond).filter((v) => v !== undefined);
    const row: Row = { ...first, spansPerSecond: rates.length ? median(rates) : undefined };
    if (ms.length) {
      const med = (pick: (m: Measurement) => number) => median(ms.map(pick));
      row.measurement = {
        ...ms[0],
        load: {
          ...ms[0].load,
          spansPerSecond: med((m) => m.load.spansPerSecond),
          non2xx: med((m) => m.load.non2xx),
          errors: med((m) => m.load.errors),
          latencyMs: { p50: med((m) => m.load.latencyMs.p50), p99: med((m) => m.load.latencyMs.p99), max: med((m) => m.load.latencyMs.max) },
        },
        cpuPerMillion: med((m) => m.cpuPerMillion),
        coreShare: med((m) => m.coreShare),
        rssMiB: med((m) => m.rssMiB),
        peakRssMiB: med((m) => m.peakRssMiB),
        drainSeconds: med((m) => m.drainSeconds ?? 0),
      };
    }
    return row;
  });
}

function combinedRatios(perRound: Array<Array<{ label: string; value: number }>>): Array<{ label: string; median: number; min: number; max: number }> {
  const labels = [...new Set(perRound.flat().map((r) => r.label))];
  return labels.map((label) => {
    const values = perRound.flatMap((round) => round.filter((r) => r.label === label).map((r) => r.value));
    return { label, median: median(values), min: Math.min(...values), max: Math.max(...values) };
  });
}

/** The ratios one round supports: each against a peer or a ceiling measured in that same round. */
export function ratioValues(rows: Row[]): Array<{ label: string; value: number }> {
  const out: Array<{ label: string; value: number }> = [];
  const push = (label: string, value: number) => out.push({ label, value });
  const find = (scenario: string, target: string) => rows.find((r) => r.scenario === scenario && r.target.startsWith(target))?.measurement;
  for (const scenario of ['otlp-proto', 'otlp-proto-llm', 'otlp-proto-kafka', 'otlp-proto-kafka-durable', 'otlp-proto-durable', 'steady-10k']) {
    const ours = find(scenario, 'tracehop');
    const theirs = find(scenario, 'otelcol');
    if (!ours || !theirs) continue;
    push(`${scenario}: tracehop / otelcol spans/s`, ours.load.spansPerSecond / theirs.load.spansPerSecond);
    push(`${scenario}: otelcol / tracehop CPU-seconds per M spans (higher = tracehop cheaper)`, theirs.cpuPerMillion / ours.cpuPerMillion);
    push(`${scenario}: tracehop / otelcol p99 latency`, ours.load.latencyMs.p99 / theirs.load.latencyMs.p99);
  }
  const limit = rows.find((r) => r.scenario === 'limit' && r.target.startsWith('tracing'))?.spansPerSecond;
  const limitOtlp = rows.find((r) => r.scenario === 'limit' && r.target === 'OTLP protobuf')?.spansPerSecond;
  const limitLlm = rows.find((r) => r.scenario === 'limit' && r.target === 'OTLP protobuf, LLM spans')?.spansPerSecond;
  for (const r of rows) {
    // An open-loop scenario runs at a set rate: its share of the ceiling says nothing.
    if (!r.measurement || r.target === 'otelcol' || r.scenario.startsWith('steady')) continue;
    const ceiling = r.scenario === 'otlp-proto-llm' ? limitLlm : r.scenario.startsWith('otlp') ? limitOtlp : limit;
    if (ceiling) push(`${r.scenario} (${r.target}) as a fraction of its limit`, r.measurement.load.spansPerSecond / ceiling);
  }
  const one = find('otlp-proto-cpus-all', 'tracehop (workers: 1)');
  const many = rows.find((r) => r.scenario === 'otlp-proto-cpus-all' && r.target.startsWith('tracehop (workers: ') && r.target !== 'tracehop (workers: 1)');
  const collector = find('otlp-proto-cpus-all', 'otelcol');
  if (one && many?.measurement) push(`otlp-proto-cpus-all: ${many.target} / tracehop (workers: 1) spans/s`, many.measurement.load.spansPerSecond / one.load.spansPerSecond);
  if (many?.measurement && collector) {
    push(`otlp-proto-cpus-all: ${many.target} / otelcol spans/s`, many.measurement.load.spansPerSecond / collector.load.spansPerSecond);
    push(`otlp-proto-cpus-all: otelcol / ${many.target} CPU-seconds per M spans (higher = tracehop cheaper)`, collector.cpuPerMillion / many.measurement.cpuPerMillion);
  }
  // Issue 26's durable targets name two loads: agenta-flat (its own scenario runs both streams back to
  // back) and otlp-proto (the otlp-proto and otlp-proto-durable rows: same body and exporter, only the
  // stream differs).
  const durableAgainstMemory = [
    { load: 'agenta-flat', durable: find('durable-vs-memory', 'tracehop (storage {type: disk'), memory: find('durable-vs-memory', 'tracehop (storage memory') },
    { load: 'otlp-proto', durable: find('otlp-proto-durable', 'tracehop'), memory: find('otlp-proto', 'tracehop') },
  ];
  for (const { load, durable, memory } of durableAgainstMemory) {
    if (!durable || !memory) continue;
    push(`${load}: durable (fsync always) / memory spans/s`, durable.load.spansPerSecond / memory.load.spansPerSecond);
    push(`${load}: durable / memory CPU-seconds per M spans (lower = durable cheaper)`, durable.cpuPerMillion / memory.cpuPerMillion);
    push(`${load}: durable / memory p99 latency`, durable.load.latencyMs.p99 / memory.load.latencyMs.p99);
  }
  return out;
}

/** The row's note, led by how long the target kept exporting after the load ended when that was a second or more. */
function drainNote(drainSeconds: number | undefined, note: string | undefined): string {
  const drain = drainSeconds !== undefined && drainSeconds >= 1 ? `exported for ${f1(drainSeconds)} s after the load (CPU counted)` : '';
  return [drain, note ?? ''].filter(Boolean).join('; ');
}
