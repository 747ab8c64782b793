// The benchmark scenarios (issue 6). Each returns rows for the report; peers run with the same load in the
// same run so that ratios, not absolute numbers, carry the claim.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { WorkingBatch } from '../model/batch.ts';
import { ProtoDecoder } from '../codec/otlp/index.ts';
import { BatchLinesEncoder } from '../codec/record/index.ts';
import type { TracingBody } from '../model/batch.ts';
import { TracingSpans } from '../codec/tracing/spans.ts';
import { checkOtlpSpans, OtlpRules } from '../codec/otlp/rules.ts';
import { factory as namespace } from '../processors/namespace/factory.ts';
import { silentLogger } from '../pipeline/log.ts';
import { TracingBodyReader } from '../codec/tracing/body-reader.ts';
import { flatBody, nestedBody, otlpLlmProtoBody, otlpProtoBody } from './bodies.ts';
import { createTopic } from './kafka-topic.ts';
import { StoreExporter } from '../exporters/store/store-exporter.ts';
import { storeReadAfterWrite } from './read-after-write.ts';
import type { LoadSpec } from './loadgen.ts';
import { connectionsByProcess } from './connections.ts';
import { REPO } from './paths.ts';
import { processTree } from './proc.ts';
import { quantile } from './quantile.ts';
import { removeScratch, scratchDir } from './scratch.ts';
import { measure, startCollector, startTracehop, sum, type Measurement, type Pin, type Target } from './target.ts';

export interface Row {
  scenario: string;
  target: string;
  measurement?: Measurement;
  /** Spans/s of an in-process loop (the limit scenario). */
  spansPerSecond?: number;
  note?: string;
}

export interface BenchContext {
  durationMs: number;
  pin: Pin;
  collector(): string | undefined;
  /** 1 for the first round; the peers of a pair take turns at going first (see `secondPeerFirst`). */
  round: number;
  /** `pinned`: the daemon and the load generator each on a CPU of its own (taskset); `all` (`--cpus all`):
   *  every process shares all the machine's CPUs, as a gateway runs. */
  cpus: 'pinned' | 'all';
}

/**
 * Whether the second peer of a pair (the Collector; durable-vs-memory's memory stream) runs first in this
 * round: in every second round. The two runs of a pair follow each other, and whatever favours the first
 * or the second of them (the drift of a shared host over half a minute, the page cache and files the run
 * before left behind) then falls on each peer in turn instead of on the same one in every round.
 */
export function secondPeerFirst(round: number): boolean {
  return round % 2 === 0;
}

export interface Scenario {
  name: string;
  /** Runs only with `--cpus all` (and is what that mode runs unless scenarios are named). */
  allCpus?: boolean;
  run(ctx: BenchContext): Promise<Row[]>;
}

const SPANS = 100;
const CONCURRENCY = 8;
const BODIES = 4;
/** How often the `--cpus all` rows read how the connections are spread over the processes. */
const CONNECTION_SAMPLE_MS = 500;

/** BODIES request bodies from `make`, each written to a file of its own for the load generator. */
export function writeBodies(make: (i: number) => Buffer): string[] {
  const dir = scratchDir('bodies-');
  return Array.from({ length: BODIES }, (_, i) => {
    const file = join(dir, `body-${i}.bin`);
    writeFileSync(file, make(i));
    return file;
  });
}

// An open loop at a low rate warms the daemon slowly: at 100 requests/s V8 is still optimising functions
// for ~10 s and the daemon's CPU share falls until then, while the Collector's is flat from the start
// (docs/performance.md, round 0530). A steady-rate figure is about a daemon that has been running, so its window opens after
// that; a closed loop at full load is warm within its 3 s.
const STEADY_WARMUP_MS = 15_000;

export function load(url: string, contentType: string, bodyFiles: string[], ctx: Pick<BenchContext, 'durationMs'>, rate?: number, concurrency = CONCURRENCY): LoadSpec {
  return {
    url, headers: { 'content-type': contentType }, bodyFiles, spansPerRequest: SPANS, concurrency,
    durationMs: ctx.durationMs, warmupMs: rate ? STEADY_WARMUP_MS : Math.min(3000, ctx.durationMs / 3), rate,
  };
}

export const fileExporter = `  file:
    path: DIR/spans.jsonl
    rotation: {max_megabytes: 100, max_backups: 2}`;

/** A tracehop config with `DIR` where the daemon's scratch directory goes (startTracehop fills it in). */
export function tracehopConfig(receiver: 'http' | 'otlp', exporters: string, storage = 'memory', exporterIds = 'file', processors = 'namespace, batch', workers = 1): string {
  const receivers = receiver === 'http'
    ? '  http:\n    endpoint: 127.0.0.1:0'
    : '  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:0';
  return `receivers:
${receivers}
processors:
  batch: {}
exporters:
${exporters}
storage: ${storage}
service:
  workers: ${workers}
  telemetry:
    metrics:
      address: 127.0.0.1:0
  pipelines:
    traces:
      receivers: [${receiver}]
      processors: [${processors}]
      exporters: [${exporterIds}]
`;
}

/** `extensions`: the Collector's extensions section's body (each extension at two spaces), all enabled. */
function collectorConfig(exporter: string, exporterId: string, extensions?: string): string {
  const ids = extensions === undefined ? [] : [...extensions.matchAll(/^  ([a-z_/]+):/gm)].map((m) => m[1]);
  return `${extensions === undefined ? '' : `extensions:\n${extensions}\n`}receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:PORT
processors:
  batch: {}
exporters:
${exporter}
service:
${ids.length ? `  extensions: [${ids.join(', ')}]\n` : ''}  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [${exporterId}]
`;
}

/** Runs `use` on the started target, then stops it (SIGKILL after a grace period) and removes its scratch
 *  directory, whether `use` succeeded or not. */
export async function withTarget<T>(start: Promise<Target>, use: (t: Target) => Promise<T>): Promise<T> {
  const target = await start;
  try {
    return await use(target);
  } finally {
    await target.stop();
    removeScratch(target.dir);
  }
}

function freePort(): number {
  // The Collector needs a fixed port in its config. Drawn from below Linux's ephemeral range (32768 and
  // up), so the load generator's own connections can never be holding it.
  return 20000 + Math.floor(Math.random() * 12768);
}

async function tracehopHttp(
  ctx: BenchContext, name: string, body: (i: number) => Buffer, storage = 'memory', exporter = fileExporter, exporterId = 'file',
): Promise<Row> {
  const bodies = writeBodies(body);
  const measurement = await withTarget(startTracehop(name, tracehopConfig('http', exporter, storage, exporterId), ctx.pin), (t) =>
    measure(t, load(`${t.endpoints.http[0]}/tracing/spans/ingest`, 'application/json', bodies, ctx), ctx.pin));
  return { scenario: name, target: exporterId === 'file' ? `tracehop (storage ${storage})` : `tracehop (storage ${storage}, exporter ${exporterId})`, measurement };
}

async function otlpPair(
  ctx: BenchContext, name: string, tracehopExporter: string, collectorExporter: string, rate?: number, exporterIds = ['file', 'file'],
  tracehopNodeOptions: string[] = [], body: (i: number) => Buffer = otlpProtoBody, storage = 'memory', collectorExtensions?: string,
): Promise<Row[]> {
  const bodies = writeBodies(body);
  const binary = ctx.collector();
  const runCollector = async (): Promise<Row> => {
    if (!binary) return { scenario: name, target: 'otelcol', note: 'skipped: go is not on PATH, so the Collector could not be built' };
    const port = freePort();
    const theirs = await withTarget(startCollector(name, binary, collectorConfig(collectorExporter, exporterIds[1], collectorExtensions), port, ctx.pin), (t) =>
      measure(t, load(`${t.endpoints.otlp[0]}/v1/traces`, 'application/x-protobuf', bodies, ctx, rate), ctx.pin));
    return { scenario: name, target: 'otelcol', measurement: theirs };
  };
  const first = secondPeerFirst(ctx.round) ? await runCollector() : undefined;
  const rows: Row[] = [];
  for (const nodeOptions of ['', ...tracehopNodeOptions]) {
    const ours = await withTarget(startTracehop(name, tracehopConfig('otlp', tracehopExporter, storage, exporterIds[0]), ctx.pin, { nodeOptions }), (t) =>
      measure(t, load(`${t.endpoints.otlp[0]}/v1/traces`, 'application/x-protobuf', bodies, ctx, rate), ctx.pin));
    rows.push({ scenario: name, target: nodeOptions ? `tracehop (NODE_OPTIONS=${nodeOptions})` : 'tracehop', measurement: ours });
  }
  // The rows keep one order (tracehop first) whichever ran first.
  rows.push(first ?? (await runCollector()));
  return rows;
}

/** Decode (with the receiver's checks) + sync processors + encode in one process, no HTTP, no exporter: the ceiling. */
function limitLoop(ctx: BenchContext, label: string, decode: (body: Buffer) => WorkingBatch, bodies: Buffer[]): Row {
  const context = (id: string) => ({ id, logger: silentLogger });
  // One encoder for the run, as an exporter keeps one (the bytes of a fresh one for each batch).
  const lines = new BatchLinesEncoder();
  const chain = [namespace.create({ semconv: 'otlp', propagate_metrics: false }, context('namespace'))];
  const deadline = performance.now() + ctx.durationMs;
  let spans = 0;
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; performance.now() < deadline; i++) {
    const batch = decode(bodies[i % bodies.length]);
    for (const p of chain) p.process(batch);
    bytes += lines.encode(batch.spans).toString('utf8').length;
    spans += batch.spans.length;
  }
  const seconds = (performance.now() - started) / 1000;
  return { scenario: 'limit', target: label, spansPerSecond: spans / seconds, note: `${(bytes / seconds / 1e6).toFixed(0)} MB/s of JSON lines` };
}

/** Traces of 100 spans written before the reads of the store-read scenario: a million spans. */
const STORED_TRACES = 10_000;
const READS = 1_000;

/**
 * A store holding a million spans (10,000 distinct traces of 100 spans, written in the exporter's own
 * batches), then a thousand reads of whole traces at random, in process: the store's side of
 * `GET /tracing/traces/{id}` (issue 25's target: p99 under 50 ms with a million spans stored).
 */
async function storeReads(): Promise<Row> {
  const dir = scratchDir('store-');
  const store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 64 * 1024 ** 3, maxAge: 0, pruneInterval: 60_000, logger: silentLogger });
  try {
    await store.start();
    const chain = namespace.create({ semconv: 'otlp', propagate_metrics: false }, { id: 'namespace', logger: silentLogger });
    const writeStarted = performance.now();
    for (let t = 0; t < STORED_TRACES; t += 10) {
      const spans = [];
      for (let r = t; r < t + 10; r++) {
        const batch = decodeTracing(flatBody(r));
        chain.process(batch);
        spans.push(...batch.spans);
      }
      await store.export(spans);
    }
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    const reads = store.reads()!;
    const ids = Array.from({ length: STORED_TRACES }, (_, r) => decodeTracing(flatBody(r, 1)).spans[0].traceId);
    const took: number[] = [];
    for (let i = 0; i < READS; i++) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const started = performance.now();
      if (reads.getTrace('', id) === undefined) throw new Error(`trace ${id} was not stored`);
      took.push(performance.now() - started);
    }
    took.sort((a, b) => a - b);
    const at = (q: number) => quantile(took, q)!.toFixed(2);
    return {
      scenario: 'store-read', target: 'tracehop store', spansPerSecond: (STORED_TRACES * 100) / writeSeconds,
      note: `${STORED_TRACES * 100} spans written (decode, namespace and store, one process); a trace read: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
    };
  } finally {
    await store.shutdown();
    removeScratch(dir);
  }
}

/** One body reader and span checker for the run, as the http receiver keeps them. */
const tracingReader = new TracingBodyReader(64);
const tracingSpans = new TracingSpans();

/** As the http receiver decodes (its top-level checks are left out: the bodies are known good). */
function decodeTracing(body: Buffer): WorkingBatch {
  const value = tracingReader.read(body, true) as { spans?: unknown[]; traces?: Record<string, unknown> } | undefined;
  if (value === undefined) throw new Error('benchmark body is not JSON');
  const tracing: TracingBody = value.spans ? { form: 'flat', spans: value.spans } : { form: 'tree', traces: value.traces! };
  return { origin: 'tracing', spans: tracingSpans.check(tracing).spans };
}

/** One decoder and rule set for the run, as a receiver keeps them. */
const otlpDecoder = new ProtoDecoder();
const otlpRules = new OtlpRules();

function decodeOtlp(body: Buffer): WorkingBatch {
  return { origin: 'otlp', spans: checkOtlpSpans(otlpDecoder.decode(body).spans, otlpRules).spans };
}

const kafkaTopic = 'bench_spans';

async function withBroker<T>(use: (bootstrap: string) => Promise<T>): Promise<T> {
  const script = join(REPO, 'test/kafka/broker.sh');
  const dir = scratchDir('kafka-');
  const env = { ...process.env, TRACEHOP_KAFKA_DIR: dir };
  const bootstrap = execFileSync('sh', [script, 'start'], { env, stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
  try {
    return await use(bootstrap);
  } finally {
    execFileSync('sh', [script, 'stop'], { env, stdio: 'ignore' });
    removeScratch(dir);
  }
}

/**
 * The otlp-proto pair exporting to Kafka (`otlp_proto`) on a broker of its own. The Collector's kafka
 * exporter does not create its topic, and the test broker does not create topics on first use: without
 * creating it first the Collector retries in memory and exports nothing (earlier runs measured that).
 */
function kafkaPair(ctx: BenchContext, name: string, durable?: { storage: string; collectorQueue: string; collectorExtensions: string }): Promise<Row[]> {
  return withBroker(async (bootstrap) => {
    await createTopic(bootstrap, `${kafkaTopic}_otelcol`, 1);
    const ours = `  kafka:\n    brokers: [${bootstrap}]\n    topic: ${kafkaTopic}\n    encoding: otlp_proto\n    create_topic: {partitions: 1, replication_factor: 1}`;
    const theirs = `  kafka:\n    brokers: [${bootstrap}]\n    traces:\n      topic: ${kafkaTopic}_otelcol\n      encoding: otlp_proto` +
      (durable ? `\n${durable.collectorQueue}` : '');
    return otlpPair(ctx, name, ours, theirs, undefined, ['kafka', 'kafka'], [], otlpProtoBody, durable?.storage, durable?.collectorExtensions);
  });
}

/**
 * `--cpus all`: otlp-proto with every process sharing all CPUs, tracehop with one worker and with one
 * per CPU, then the Collector (which uses every CPU on its own). The rows answer "does tracehop use the
 * machine": workers: N against workers: 1 (issue 26: at least 1.4x on 2 cores) and against the Collector.
 *
 * Each worker gets the load the pinned rows give the single process: CONCURRENCY connections per worker
 * (and per CPU for the Collector). A connection feeds one worker, and a closed loop keeps one request in
 * flight on it: with 8 connections in all, two workers would hold 4 each (5 and 3 at times) while the
 * load generator, sharing the CPUs, waits for its turn to send the next ones. More connections than that
 * for one worker are not free either: at 16 against 8, one worker spent 7.0-7.7 CPU-s/M against 5.7-6.0
 * (four interleaved pairs), its extra requests waiting in it. The note shows how the primary spread them.
 */
async function allCpus(ctx: BenchContext): Promise<Row[]> {
  const name = 'otlp-proto-cpus-all';
  const bodies = writeBodies(otlpProtoBody);
  const cpus = availableParallelism();
  const rows: Row[] = [];
  for (const workers of [1, cpus]) {
    const connections = CONCURRENCY * workers;
    let spread: number[] = [];
    const measurement = await withTarget(startTracehop(name, tracehopConfig('otlp', fileExporter, 'memory', 'file', 'namespace, batch', workers), ctx.pin), async (t) => {
      const url = `${t.endpoints.otlp[0]}/v1/traces`;
      // Sampled through the run; the sample with the most connections is the one with all of them open.
      const sampler = setInterval(() => {
        const now = connectionsByProcess(processTree(t.pid), Number(new URL(url).port));
        if (sum(now) >= sum(spread)) spread = now;
      }, CONNECTION_SAMPLE_MS);
      try {
        return await measure(t, load(url, 'application/x-protobuf', bodies, ctx, undefined, connections), ctx.pin);
      } finally {
        clearInterval(sampler);
      }
    });
    const split = measurement.cpuByProcess?.map((seconds) => seconds.toFixed(2)).join(', ');
    const notes = [
      `${connections} connections`, `load generator ${measurement.loadgenCpuPerMillion?.toFixed(2)} CPU-s/M`,
      ...(split ? [`CPU s by process (primary, workers): ${split}`, `connections by process: ${spread.join(', ')}`] : []),
    ];
    rows.push({ scenario: name, target: `tracehop (workers: ${workers})`, measurement, note: notes.join('; ') });
  }
  const binary = ctx.collector();
  if (!binary) return [...rows, { scenario: name, target: 'otelcol', note: 'skipped: go is not on PATH, so the Collector could not be built' }];
  const port = freePort();
  const collector = '  file:\n    path: DIR/spans.json\n    rotation: {max_megabytes: 100, max_backups: 2}';
  const theirs = await withTarget(startCollector(name, binary, collectorConfig(collector, 'file'), port, ctx.pin), (t) =>
    measure(t, load(`${t.endpoints.otlp[0]}/v1/traces`, 'application/x-protobuf', bodies, ctx, undefined, CONCURRENCY * cpus), ctx.pin));
  return [...rows, { scenario: name, target: 'otelcol', measurement: theirs, note: `${CONCURRENCY * cpus} connections` }];
}

export const scenarios: Scenario[] = [
  { name: 'agenta-flat', run: async (ctx) => [await tracehopHttp(ctx, 'agenta-flat', (i) => flatBody(i))] },
  { name: 'agenta-nested', run: async (ctx) => [await tracehopHttp(ctx, 'agenta-nested', (i) => nestedBody(i))] },
  {
    name: 'otlp-proto',
    run: (ctx) => otlpPair(ctx, 'otlp-proto', fileExporter, '  file:\n    path: DIR/spans.json\n    rotation: {max_megabytes: 100, max_backups: 2}'),
  },
  {
    // The otlp-proto pair with LLM-call spans (~45 attributes, conversations of a few KB): the shape an
    // LLM tracing backend mostly receives.
    name: 'otlp-proto-llm',
    run: (ctx) => otlpPair(ctx, 'otlp-proto-llm', fileExporter, '  file:\n    path: DIR/spans.json\n    rotation: {max_megabytes: 100, max_backups: 2}',
      undefined, undefined, [], otlpLlmProtoBody),
  },
  {
    name: 'otlp-proto-kafka',
    run: (ctx) => kafkaPair(ctx, 'otlp-proto-kafka'),
  },
  {
    // Both durable: tracehop's shipped default (the disk stream, fsync: always) against the Collector's
    // closest equivalent, its exporter's sending queue kept by the file_storage extension with fsync on.
    // The file exporter has no sending queue, so both export to Kafka (as otlp-proto-kafka).
    name: 'otlp-proto-kafka-durable',
    run: (ctx) => kafkaPair(ctx, 'otlp-proto-kafka-durable', {
      storage: '{type: disk, directory: DIR/stream, fsync: always}',
      collectorQueue: '    sending_queue: {enabled: true, storage: file_storage}',
      collectorExtensions: '  file_storage:\n    directory: DIR/queue\n    create_directory: true\n    fsync: true',
    }),
  },
  {
    // The otlp-proto pair with tracehop on its shipped default, the disk stream with fsync: always (every
    // 200 on disk), against the Collector's in-memory queue, which loses what it holds on a crash.
    name: 'otlp-proto-durable',
    run: (ctx) => otlpPair(ctx, 'otlp-proto-durable', fileExporter, '  file:\n    path: DIR/spans.json\n    rotation: {max_megabytes: 100, max_backups: 2}',
      undefined, undefined, [], otlpProtoBody, '{type: disk, directory: DIR/stream, fsync: always}'),
  },
  {
    // The two streams take turns at running first, round by round, as the peers of a pair do; the rows
    // keep one order (durable first).
    name: 'durable-vs-memory',
    run: async (ctx) => {
      const durable = () => tracehopHttp(ctx, 'durable-vs-memory', (i) => flatBody(i), '{type: disk, directory: DIR/stream, fsync: always}');
      const memory = () => tracehopHttp(ctx, 'durable-vs-memory', (i) => flatBody(i), 'memory');
      if (secondPeerFirst(ctx.round)) {
        const m = await memory();
        return [await durable(), m];
      }
      const d = await durable();
      return [d, await memory()];
    },
  },
  {
    // agenta-flat into the embedded trace store: intake waits for an exporter that is behind (the intake
    // pacer), so the spans/s is the rate the store writes at (issue 25's target: 20k spans/s on one core).
    // The bodies repeat, so after the first round each write replaces a stored row (an upsert, as a
    // redelivery is), and the store stays small: read latency over a large store is not measured here.
    name: 'store',
    run: async (ctx) => [await tracehopHttp(ctx, 'store', (i) => flatBody(i), 'memory', '  store:\n    path: DIR/store.db\n    max_bytes: 8589934592', 'store')],
  },
  { name: 'store-read', run: async () => [await storeReads()] },
  {
    // 1,000 spans/s over OTLP/HTTP into a store, each acknowledged trace polled until readable (issue 25's
    // target: readable within 1 s, p99). --duration sets how long the spans are sent.
    name: 'store-read-after-write',
    run: async (ctx) => [{ scenario: 'store-read-after-write', target: 'tracehop store', ...(await storeReadAfterWrite(ctx.durationMs, ctx.pin)) }],
  },
  {
    // otlp-proto-llm's spans through tracehop without and with the redact processor and its default
    // detectors, in turn (issue 24's target: at most 15% more CPU per span).
    name: 'redact-llm',
    run: async (ctx) => {
      const bodies = writeBodies(otlpLlmProtoBody);
      const rows: Row[] = [];
      for (const processors of ['namespace, batch', 'namespace, redact, batch']) {
        const measurement = await withTarget(startTracehop('redact-llm', tracehopConfig('otlp', fileExporter, 'memory', 'file', processors), ctx.pin), (t) =>
          measure(t, load(`${t.endpoints.otlp[0]}/v1/traces`, 'application/x-protobuf', bodies, ctx), ctx.pin));
        rows.push({ scenario: 'redact-llm', target: `tracehop (${processors})`, measurement });
      }
      return rows;
    },
  },
  {
    name: 'limit',
    run: async (ctx) => {
      const flat = Array.from({ length: BODIES }, (_, i) => flatBody(i));
      const otlp = Array.from({ length: BODIES }, (_, i) => otlpProtoBody(i));
      const llm = Array.from({ length: BODIES }, (_, i) => otlpLlmProtoBody(i));
      return [
        limitLoop(ctx, 'tracing flat JSON', decodeTracing, flat), limitLoop(ctx, 'OTLP protobuf', decodeOtlp, otlp),
        limitLoop(ctx, 'OTLP protobuf, LLM spans', decodeOtlp, llm),
      ];
    },
  },
  { name: 'otlp-proto-cpus-all', allCpus: true, run: allCpus },
  {
    name: 'steady-10k',
    // An open loop of 100 requests/s of 100 spans: CPU share and RSS at a steady 10k spans/s. A second
    // tracehop row runs with V8's own young-generation sizing (what a gateway may choose, decision 0280)
    // beside the daemon's 16 MiB semi-space.
    run: (ctx) => otlpPair(ctx, 'steady-10k', fileExporter, '  file:\n    path: DIR/spans.json\n    rotation: {max_megabytes: 100, max_backups: 2}', 100,
      undefined, ['--max-semi-space-size=0']),
  },
];
