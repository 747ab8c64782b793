// The whole daemon under kill -9: a client sends continuously to the tracing API and records every link
// of every 202; the daemon (storage: disk, fsync: always, file exporter) is SIGKILLed at random moments
// and restarted on the same directory; at the end every acknowledged span is in the file output.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';

const CONFIG = `receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch:
    timeout: 50ms
exporters:
  file:
    path: ./out/spans.jsonl
    flush_interval: 0
storage:
  type: disk
  directory: ./data
  fsync: always
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [batch]
      exporters: [file]
`;

const SPANS_PER_REQUEST = 50;
const SENDERS = 4;
const KILLS = 5;

describe('daemon under kill -9 (storage: disk)', () => {
  it('every span acknowledged with 202 reaches the file exporter across 5 SIGKILLs', async () => {
    const dir = await tempDir('tracehop-crash-');
    let daemon: Daemon = await startDaemon(CONFIG, { dir });
    let url = daemon.url('http');
    const acked = new Set<string>();
    let nextSpan = 1;
    let requests = 0;
    let refusals = 0;
    let stop = false;

    const sender = async () => {
      while (!stop) {
        const traceId = crypto.randomUUID().replaceAll('-', '');
        const spans = [];
        for (let i = 0; i < SPANS_PER_REQUEST; i++) {
          spans.push({
            trace_id: traceId,
            span_id: (nextSpan++).toString(16).padStart(16, '0'),
            span_name: 'crash-test',
            start_time: 1776363498,
            end_time: 1776363499,
          });
        }
        try {
          const res = await fetch(`${url}/tracing/spans/ingest`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ spans }),
          });
          const body = (await res.json()) as { links?: Array<{ trace_id: string; span_id: string }> };
          requests++;
          if (res.status === 202) for (const l of body.links ?? []) acked.add(`${l.trace_id}/${l.span_id}`);
          else refusals++;
        } catch {
          // The daemon is down (killed): try again once it is back.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const senders = Array.from({ length: SENDERS }, sender);

    for (let k = 0; k < KILLS; k++) {
      await new Promise((resolve) => setTimeout(resolve, 400 + Math.floor(Math.random() * 800)));
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      daemon = await startDaemon(CONFIG, { dir });
      url = daemon.url('http');
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    await Promise.all(senders);
    expect(await daemon.stop('SIGTERM')).toBe(0);

    const seen = new Map<string, number>();
    const outDir = path.join(dir, 'out');
    for (const name of fs.readdirSync(outDir)) {
      for (const line of fs.readFileSync(path.join(outDir, name), 'utf8').split('\n')) {
        if (!line) continue;
        const rec = JSON.parse(line) as { trace_id: string; span_id: string };
        const key = `${rec.trace_id}/${rec.span_id}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    }
    let lost = 0;
    for (const key of acked) if (!seen.has(key)) lost++;
    let duplicates = 0;
    for (const n of seen.values()) if (n > 1) duplicates += n - 1;
    console.log(`daemon crash test: ${requests} answered requests, ${acked.size} acknowledged spans, ` +
      `${refusals} refusals, ${duplicates} duplicates in the output, lost ${lost}`);
    expect(acked.size).toBeGreaterThan(1000);
    expect(lost).toBe(0);
  });
});
