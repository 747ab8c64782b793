// The markdown table: absolute figures for context, ratios against the peer measured in the same run for
// the claims.
import type { Row } from './scenarios.ts';

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

export function formatReport(rows: Row[], meta: { pinned: boolean; durationMs: number }): string {
  const lines = [
    `Duration ${meta.durationMs / 1000}s per run; daemon and load generator ${meta.pinned ? 'pinned to different CPUs (taskset)' : 'NOT pinned (taskset unavailable or one CPU)'}; 100 spans per request, 8 connections.`,
    '',
    '| scenario | target | spans/s | p50 ms | p99 ms | max ms | non-2xx | CPU s / M spans | core share | mean RSS MiB | peak RSS MiB | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const m = r.measurement;
    if (m) {
      lines.push(`| ${r.scenario} | ${r.target} | ${f0(m.load.spansPerSecond)} | ${f2(m.load.latencyMs.p50)} | ${f2(m.load.latencyMs.p99)} | ${f1(m.load.latencyMs.max)} | ${m.load.non2xx + m.load.errors} | ${f2(m.cpuPerMillion)} | ${f2(m.coreShare)} | ${f0(m.rssMiB)} | ${f0(m.peakRssMiB)} | ${r.note ?? ''} |`);
    } else {
      lines.push(`| ${r.scenario} | ${r.target} | ${r.spansPerSecond ? f0(r.spansPerSecond) : '-'} | | | | | | | | | ${r.note ?? ''} |`);
    }
  }
  const ratios = ratioLines(rows);
  if (ratios.length) lines.push('', '| ratio | value |', '|---|---:|', ...ratios);
  return lines.join('\n');
}

function ratioLines(rows: Row[]): string[] {
  const out: string[] = [];
  const find = (scenario: string, target: string) => rows.find((r) => r.scenario === scenario && r.target.startsWith(target))?.measurement;
  for (const scenario of ['otlp-proto', 'otlp-proto-kafka', 'steady-10k']) {
    const ours = find(scenario, 'tracehop');
    const theirs = find(scenario, 'otelcol');
    if (!ours || !theirs) continue;
    out.push(`| ${scenario}: tracehop / otelcol spans/s | ${f2(ours.load.spansPerSecond / theirs.load.spansPerSecond)} |`);
    out.push(`| ${scenario}: otelcol / tracehop CPU-seconds per M spans (higher = tracehop cheaper) | ${f2(theirs.cpuPerMillion / ours.cpuPerMillion)} |`);
    out.push(`| ${scenario}: tracehop / otelcol p99 latency | ${f2(ours.load.latencyMs.p99 / theirs.load.latencyMs.p99)} |`);
  }
  const limit = rows.find((r) => r.scenario === 'limit' && r.target.startsWith('tracing'))?.spansPerSecond;
  const limitOtlp = rows.find((r) => r.scenario === 'limit' && r.target.startsWith('OTLP'))?.spansPerSecond;
  for (const r of rows) {
    // An open-loop scenario runs at a set rate: its share of the ceiling says nothing.
    if (!r.measurement || r.target === 'otelcol' || r.scenario.startsWith('steady')) continue;
    const ceiling = r.scenario.startsWith('otlp') ? limitOtlp : limit;
    if (ceiling) out.push(`| ${r.scenario} (${r.target}) as a fraction of its limit | ${f2(r.measurement.load.spansPerSecond / ceiling)} |`);
  }
  const durable = rows.find((r) => r.scenario === 'durable-vs-memory' && r.target.includes('disk'))?.measurement;
  const memory = rows.find((r) => r.scenario === 'durable-vs-memory' && r.target.includes('memory'))?.measurement;
  if (durable && memory) {
    out.push(`| durable (fsync always) / memory spans/s | ${f2(durable.load.spansPerSecond / memory.load.spansPerSecond)} |`);
    out.push(`| durable / memory p99 latency | ${f2(durable.load.latencyMs.p99 / memory.load.latencyMs.p99)} |`);
  }
  return out;
}
