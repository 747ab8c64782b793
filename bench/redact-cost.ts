// The CPU cost of the `redact` processor per span, in one process (no HTTP, no stream, no exporter):
// OTLP protobuf LLM-call spans (~4.4 KB each, the bench's otlp-proto-llm bodies) decoded with the
// receiver's checks, run through namespace and encoded as JSON lines (the bench's `limit` loop), with
// and without redact (default detectors) after namespace. Short rounds of each take turns and the
// fastest round of each counts (CPU time of this process), so that other load on the machine favours
// neither. Also timed: redact alone over spans namespace already ran on. Not part of `npm run bench`:
// `node bench/redact-cost.ts [rounds] [milliseconds per round]`; REDACT_DETECTORS='["email"]' picks the
// detectors (default: all), e.g. `[]` for the cost of the walk alone.
import { ProtoDecoder } from '../codec/otlp/index.ts';
import { checkOtlpSpans, OtlpRules } from '../codec/otlp/rules.ts';
import { BatchLinesEncoder } from '../codec/record/index.ts';
import type { WorkingBatch } from '../model/batch.ts';
import { silentLogger } from '../pipeline/log.ts';
import { factory as namespace } from '../processors/namespace/factory.ts';
import { RedactProcessor } from '../processors/redact/processor.ts';
import { otlpLlmProtoBody } from './bodies.ts';

const rounds = Number(process.argv[2] ?? 20);
const roundMs = Number(process.argv[3] ?? 300);
const decoder = new ProtoDecoder();
const rules = new OtlpRules();
const decode = (body: Buffer): WorkingBatch => ({ origin: 'otlp', spans: checkOtlpSpans(decoder.decode(body).spans, rules).spans });
const bodies = Array.from({ length: 50 }, (_, i) => otlpLlmProtoBody(i));
const ns = namespace.create({ semconv: 'otlp', propagate_metrics: false }, { id: 'namespace', logger: silentLogger });
const redact = new RedactProcessor(process.env.REDACT_DETECTORS ? { detectors: JSON.parse(process.env.REDACT_DETECTORS) } : {});
const lines = new BatchLinesEncoder();

/** CPU microseconds per span of `step` (which handles one body, returning its span count), over about `ms`. */
function cpuPerSpan(step: (i: number) => number, ms: number): number {
  let spans = 0;
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; performance.now() - wall < ms; i++) spans += step(i);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / spans;
}

const chain = (withRedact: boolean) => (i: number) => {
  const batch = decode(bodies[i % bodies.length]);
  ns.process(batch);
  if (withRedact) redact.process(batch);
  lines.encode(batch.spans);
  return batch.spans.length;
};
// Spans as redact sees them in the daemon: decoded and namespaced (clean, so redact leaves them as they are).
const ready = bodies.map((b) => {
  const batch = decode(b);
  ns.process(batch);
  return batch;
});
const alone = (i: number) => {
  const batch = ready[i % ready.length];
  redact.process(batch);
  return batch.spans.length;
};

const textChars = ready[0].spans.reduce((n, s) => {
  let c = 0;
  s.attributes.forEach((v) => { if (typeof v === 'string') c += v.length; });
  return n + c;
}, 0) / ready[0].spans.length;
const best = { without: Infinity, with: Infinity, alone: Infinity };
for (const s of [chain(false), chain(true), alone]) cpuPerSpan(s, 500);
for (let r = 0; r < rounds; r++) {
  best.without = Math.min(best.without, cpuPerSpan(chain(false), roundMs));
  best.with = Math.min(best.with, cpuPerSpan(chain(true), roundMs));
  best.alone = Math.min(best.alone, cpuPerSpan(alone, roundMs));
}
console.log(`string attribute text per span after namespace: ${textChars.toFixed(0)} characters`);
console.log(`decode + namespace + encode:          ${best.without.toFixed(2)} µs/span`);
console.log(`decode + namespace + redact + encode: ${best.with.toFixed(2)} µs/span (+${((best.with / best.without - 1) * 100).toFixed(1)}%)`);
console.log(`redact alone:                         ${best.alone.toFixed(2)} µs/span (${((best.alone / best.without) * 100).toFixed(1)}% of the chain without it)`);
