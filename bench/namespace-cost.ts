// The CPU cost of the `namespace` processor per span, in one process: the bench's otlp-proto bodies (small
// spans) and otlp-proto-llm bodies (~4.4 KB LLM-call spans) decoded with the receiver's checks, then run
// through namespace, which alone is timed; decode is timed alone too, for scale. Given the
// path of another checkout of this repository, its namespace processor runs in the same rounds, on spans
// decoded the same way, for an A/B comparison of two versions. Short rounds take turns and the fastest
// round of each counts (CPU time of this process), so that other load on the machine favours neither.
// Two copies of one tree measured up to ~10% apart, so an A/B runs both ways (from each checkout, with
// the other as the argument) and several times.
// Not part of `npm run bench`: `node bench/namespace-cost.ts [rounds] [milliseconds per round] [checkout]`.
import { resolve } from 'node:path';
import { ProtoDecoder } from '../codec/otlp/index.ts';
import { checkOtlpSpans, OtlpRules } from '../codec/otlp/rules.ts';
import type { WorkingBatch } from '../model/batch.ts';
import type { Factory, SyncProcessor } from '../pipeline/component.ts';
import { silentLogger } from '../pipeline/log.ts';
import { factory as namespace } from '../processors/namespace/factory.ts';
import type { NamespaceConfig } from '../processors/namespace/config.ts';
import { otlpLlmProtoBody, otlpProtoBody } from './bodies.ts';

const rounds = Number(process.argv[2] ?? 20);
const roundMs = Number(process.argv[3] ?? 300);
const other = process.argv[4];
const decoder = new ProtoDecoder();
const rules = new OtlpRules();
const decode = (body: Buffer): WorkingBatch => ({ origin: 'otlp', spans: checkOtlpSpans(decoder.decode(body).spans, rules).spans });

type NamespaceFactory = Factory<NamespaceConfig, SyncProcessor>;
const factories: [string, NamespaceFactory][] = [['this tree', namespace]];
if (other !== undefined) {
  const module = await import(resolve(other, 'processors/namespace/factory.ts')) as { factory: NamespaceFactory };
  factories.push([other, module.factory]);
}
const config = { semconv: 'otlp', propagate_metrics: false } as NamespaceConfig;
const processors = factories.map(([, f]) => f.create(config, { id: 'namespace', logger: silentLogger }));

/**
 * CPU microseconds per span of `process` over about `ms` of its own CPU time: bodies are decoded in chunks
 * outside the timing (namespace rewrites the spans it gets, so each run needs freshly decoded ones).
 */
function cpuPerSpan(run: ((batch: WorkingBatch) => void) | undefined, bodies: Buffer[], ms: number): number {
  let spans = 0;
  let used = 0;
  for (let i = 0; used < ms * 1000; ) {
    const chunk: WorkingBatch[] = [];
    for (let j = 0; j < CHUNK; j++, i++) chunk.push(decode(bodies[i % bodies.length]));
    const cpu = run === undefined ? decodeChunk(bodies, i) : (() => {
      const start = process.cpuUsage();
      for (const batch of chunk) run(batch);
      return process.cpuUsage(start);
    })();
    used += cpu.user + cpu.system;
    for (const batch of chunk) spans += batch.spans.length;
  }
  return used / spans;
}

/** Decode alone, timed over one chunk of bodies (the same count as a chunk of namespace runs). */
function decodeChunk(bodies: Buffer[], from: number): NodeJS.CpuUsage {
  const start = process.cpuUsage();
  for (let j = 0; j < CHUNK; j++) decode(bodies[(from + j) % bodies.length]);
  return process.cpuUsage(start);
}

const CHUNK = 10;

for (const [name, body] of [['otlp-proto', otlpProtoBody], ['otlp-proto-llm', otlpLlmProtoBody]] as const) {
  const bodies = Array.from({ length: 50 }, (_, i) => body(i));
  const steps = [undefined, ...processors.map((p) => (batch: WorkingBatch) => p.process(batch))];
  const best = steps.map(() => Infinity);
  for (const s of steps) cpuPerSpan(s, bodies, 500);
  for (let r = 0; r < rounds; r++) {
    // Turns alternate which version goes first.
    const order = r % 2 === 0 ? steps.map((_, j) => j) : steps.map((_, j) => steps.length - 1 - j);
    for (const j of order) best[j] = Math.min(best[j], cpuPerSpan(steps[j], bodies, roundMs));
  }
  console.log(`${name}: decode ${best[0].toFixed(3)} µs/span`);
  factories.forEach(([label], j) => console.log(`  namespace (${label}): ${best[j + 1].toFixed(3)} µs/span`));
}
