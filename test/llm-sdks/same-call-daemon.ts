// What the same-call tests (test/python/same-call.test.ts, test/llm-sdks/vercel.test.ts) share: the daemon
// they send to (OTLP/HTTP in, namespace, the file exporter out) and the reading of the spans each SDK's
// call added to its output.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Daemon } from '../helpers/daemon.ts';

export const SAME_CALL_DAEMON_CONFIG = `receivers:
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0}
processors:
  batch: {timeout: 10ms}
exporters:
  file: {path: ./out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [namespace, batch], exporters: [file]}
`;

export interface SpanRecord {
  span_id: string;
  parent_id?: string;
  span_name: string;
  span_type: string;
  attributes: Record<string, unknown>;
}

/** The daemon's output read call by call: each `next` returns the records not returned before. */
export class NewSpans {
  private readonly seen = new Set<string>();
  private readonly daemon: Daemon;

  constructor(daemon: Daemon) {
    this.daemon = daemon;
  }

  /** Waits until `count` records are new (at most ~10 s), takes them and asserts there are exactly `count`. */
  async next(count: number): Promise<SpanRecord[]> {
    let fresh: SpanRecord[] = [];
    for (let i = 0; i < 400 && fresh.length < count; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25));
      const lines = (await readFile(join(this.daemon.dir, 'out.jsonl'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
      fresh = lines.map((l) => JSON.parse(l) as SpanRecord).filter((r) => !this.seen.has(r.span_id));
    }
    for (const r of fresh) this.seen.add(r.span_id);
    expect(fresh).toHaveLength(count);
    return fresh;
  }
}
