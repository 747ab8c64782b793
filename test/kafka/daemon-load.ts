// Pieces of the tests that drive the built daemon under load with Kafka as an exporter: a tracing-API
// client that sends new spans continuously and records every link of every 202, the file exporter's
// output and a topic read back as counts per span, and the size of a disk stream's directory.
//
// A span is named `trace_id/span_id` everywhere here, the way the 202 links, the file records and the
// Kafka json values all carry it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Consumer } from '@platformatic/kafka';

export type SpanKey = string;

export interface LoadClientOptions {
  /** The tracing API base URL; a function because a restarted daemon listens on a new port. */
  url: () => string;
  senders: number;
  spansPerRequest: number;
  /** Pause after each answered request, per sender (0: send back to back). */
  pauseMs?: number;
  /** Bytes of text in each span's `ag.data.inputs.q` (makes the stream grow measurably). */
  payloadBytes?: number;
}

/**
 * Senders that POST new spans (never a resend: a refused span stays refused) until `stop()`. A 202's
 * links are the acknowledged spans; a 503's spans go to `refused`, and the sender waits its Retry-After;
 * a request without an answer (daemon killed) counts in `failedRequests` and is retried with new spans.
 */
export class LoadClient {
  readonly acked = new Set<SpanKey>();
  readonly refused = new Set<SpanKey>();
  /** Answers by status. */
  readonly statuses = new Map<number, number>();
  /** Retry-After values (header text) seen on 429/503 answers. */
  readonly retryAfter: string[] = [];
  /** The `detail` of the last answer other than 202. */
  lastRefusal = '';
  failedRequests = 0;
  /** When the last 202 arrived (Date.now()); 0 before the first. */
  lastAckAt = 0;
  private readonly options: LoadClientOptions;
  private nextSpan = 1;
  private running = false;
  private senders: Array<Promise<void>> = [];
  private readonly payload: string;

  constructor(options: LoadClientOptions) {
    this.options = options;
    this.payload = 'q'.repeat(options.payloadBytes ?? 0);
  }

  start(): void {
    this.running = true;
    this.senders = Array.from({ length: this.options.senders }, () => this.send());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.senders);
  }

  private spans(): Array<Record<string, unknown>> {
    const traceId = randomBytes(16).toString('hex');
    const spans: Array<Record<string, unknown>> = [];
    for (let i = 0; i < this.options.spansPerRequest; i++) {
      spans.push({
        trace_id: traceId,
        span_id: (this.nextSpan++).toString(16).padStart(16, '0'),
        span_name: 'load',
        start_time: 1776363498,
        end_time: 1776363499,
        ...(this.payload ? { attributes: { ag: { data: { inputs: { q: this.payload } } } } } : {}),
      });
    }
    return spans;
  }

  private async send(): Promise<void> {
    while (this.running) {
      const spans = this.spans();
      let wait = this.options.pauseMs ?? 0;
      try {
        const res = await fetch(`${this.options.url()}/tracing/spans/ingest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ spans }),
        });
        const body = (await res.json()) as { links?: Array<{ trace_id: string; span_id: string }>; detail?: unknown };
        this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
        if (res.status === 202) {
          for (const l of body.links ?? []) this.acked.add(`${l.trace_id}/${l.span_id}`);
          this.lastAckAt = Date.now();
        } else {
          for (const s of spans) this.refused.add(`${s.trace_id as string}/${s.span_id as string}`);
          this.lastRefusal = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
          if (res.status === 503 || res.status === 429) {
            const header = res.headers.get('retry-after');
            this.retryAfter.push(header ?? '');
            const seconds = Number(header);
            if (Number.isFinite(seconds) && seconds > 0) wait = Math.max(wait, seconds * 1000);
          }
        }
      } catch {
        // No answer (the daemon was killed): the spans were not acknowledged; send new ones when it is back.
        this.failedRequests++;
        wait = Math.max(wait, 20);
      }
      if (wait > 0 && this.running) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Counts per span in the file exporter's output directory (every file in it: rotation included). */
export function fileSpanCounts(dir: string): Map<SpanKey, number> {
  const seen = new Map<SpanKey, number>();
  if (!fs.existsSync(dir)) return seen;
  for (const name of fs.readdirSync(dir)) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const rec = JSON.parse(line) as { trace_id: string; span_id: string };
      const key = `${rec.trace_id}/${rec.span_id}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  return seen;
}

/** Bytes of the files directly in `dir` (a disk stream: segments, cursors, lock), or of those whose
 *  name ends with `suffix` (`.seg`: the records alone). */
export function dirBytes(dir: string, suffix = ''): number {
  let total = 0;
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(suffix)) continue;
    const stat = fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
    if (stat?.isFile()) total += stat.size;
  }
  return total;
}

export interface Tally {
  /** Spans of `expected` not found. */
  lost: number;
  /** Extra copies of any span (at least once allows them). */
  duplicates: number;
  /** Spans delivered that were never acknowledged: appended, but the answer was lost (daemon killed). */
  unacknowledged: number;
}

export function tally(expected: Set<SpanKey>, seen: Map<SpanKey, number>): Tally {
  let lost = 0;
  for (const key of expected) if (!seen.has(key)) lost++;
  let duplicates = 0;
  let unacknowledged = 0;
  for (const [key, n] of seen) {
    if (n > 1) duplicates += n - 1;
    if (!expected.has(key)) unacknowledged++;
  }
  return { lost, duplicates, unacknowledged };
}

/**
 * An independent consumer (a group of its own) reading a json-encoded topic from the beginning and
 * counting each span it sees, with the time it first arrived.
 */
export class TopicWatcher {
  readonly counts = new Map<SpanKey, number>();
  readonly firstSeenAt = new Map<SpanKey, number>();
  messages = 0;
  private consumer: Consumer<Buffer, Buffer, Buffer, Buffer>;
  private stream?: Awaited<ReturnType<Consumer<Buffer, Buffer, Buffer, Buffer>['consume']>>;
  private error?: unknown;

  constructor(bootstrap: string) {
    this.consumer = new Consumer({
      groupId: `tracehop-test-${randomBytes(4).toString('hex')}`,
      clientId: 'tracehop-test-watcher',
      bootstrapBrokers: [bootstrap],
      maxWaitTime: 200,
    });
  }

  async start(topic: string): Promise<this> {
    this.stream = await this.consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
    this.stream.on('data', (m) => {
      this.messages++;
      const rec = JSON.parse(m.value.toString('utf8')) as { trace_id: string; span_id: string };
      const key = `${rec.trace_id}/${rec.span_id}`;
      const n = this.counts.get(key) ?? 0;
      this.counts.set(key, n + 1);
      if (n === 0) this.firstSeenAt.set(key, Date.now());
    });
    this.stream.on('error', (error) => (this.error = error));
    return this;
  }

  /**
   * Resolves once every span of `keys` arrived (then `settleMs` more, so late duplicates count too), or
   * at `timeoutMs` with whatever arrived: the caller's assertions say what is missing.
   */
  async waitForAll(keys: Iterable<SpanKey>, timeoutMs: number, settleMs = 1000): Promise<void> {
    const want = [...keys];
    const deadline = Date.now() + timeoutMs;
    let i = 0;
    while (Date.now() < deadline) {
      if (this.error) throw this.error;
      while (i < want.length && this.counts.has(want[i])) i++;
      if (i === want.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, settleMs));
  }

  async close(): Promise<void> {
    await this.stream?.close();
    await this.consumer.close(true);
  }
}
