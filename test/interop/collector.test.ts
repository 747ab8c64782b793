// Interop with a real OpenTelemetry Collector, both directions (issue 3):
//   tracehop `otlp` exporter -> Collector otlp receiver -> Collector file exporter (OTLP/JSON lines)
//   Collector `otlp_http` exporter -> tracehop `otlp` receiver -> tracehop `file` exporter (span records)
// The same hand-written OTLP request goes in at one end; what comes out at the other must hold every
// id, name, time, attribute (with its type where the format keeps it), event, link, resource and scope.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeWithCollector, QUIET_TELEMETRY, startCollector, useCollectorBinary } from './collector.ts';
import { waitForLines } from './files.ts';
import {
  FIXTURE_SPAN_COUNT,
  fixtureRequest,
  fromOtlpJson,
  fromSpanRecords,
  parseExact,
  toPlain,
} from './otlp-fixture.ts';
import { freePort } from './ports.ts';
import type { Peer } from './process.ts';
import { otlpPipeline, startTracehop, type Tracehop } from './tracehop.ts';

type Json = Record<string, unknown>;

function spansInOtlpLines(lines: string[]): number {
  return fromOtlpJson(lines.map((l) => JSON.parse(l) as Json)).length;
}

async function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describeWithCollector('interop with a real OpenTelemetry Collector', () => {
  const binary = useCollectorBinary();
  let dir = '';
  const peers: Array<Peer | Tracehop> = [];

  afterEach(async () => {
    // Stop everything even when a test failed half-way; report the first stop error after.
    const errors: unknown[] = [];
    for (const peer of peers.splice(0).reverse()) {
      try {
        await peer.stop();
      } catch (error) {
        errors.push(error);
      }
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    dir = '';
    if (errors.length > 0) throw errors[0];
  });

  it.each(['proto', 'json'])(
    "tracehop's otlp exporter (%s, gzip) delivers to the Collector, whose file output matches what was sent",
    async (encoding) => {
      dir = mkdtempSync(join(tmpdir(), 'tracehop-interop-'));
      const collectorPort = await freePort();
      const tracehopPort = await freePort();
      const collectorOut = join(dir, 'collector-out.jsonl');

      const collector = await startCollector(
        binary(),
        {
          receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${collectorPort}` } } } },
          exporters: { file: { path: collectorOut, format: 'json', flush_interval: '100ms' } },
          service: {
            telemetry: QUIET_TELEMETRY,
            pipelines: { traces: { receivers: ['otlp'], exporters: ['file'] } },
          },
        },
        dir,
      );
      peers.push(collector);
      const tracehop = await startTracehop(
        otlpPipeline(tracehopPort, 'otlp', {
          endpoint: `http://127.0.0.1:${collectorPort}`,
          encoding,
          compression: 'gzip',
        }),
        dir,
      );
      peers.push(tracehop);

      const sent = fixtureRequest();
      const answer = await postJson(`http://127.0.0.1:${tracehopPort}/v1/traces`, sent);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toMatch(/rejected/i);

      const lines = await waitForLines(collectorOut, spansInOtlpLines, FIXTURE_SPAN_COUNT, 30_000, () =>
        `collector output:\n${collector.output().slice(-3000)}\ntracehop output:\n${tracehop.output().slice(-3000)}`,
      );
      const received = fromOtlpJson(lines.map((l) => JSON.parse(l) as Json));
      expect(received).toEqual(fromOtlpJson([sent]));
    },
  );

  // The json case also takes the tracing backend's path (/otlp/v1/traces), as a Collector configured
  // for that backend would (`traces_endpoint` is used as given).
  it.each([
    { encoding: 'proto', path: '/v1/traces' },
    { encoding: 'json', path: '/otlp/v1/traces' },
  ])(
    "the Collector's otlp_http exporter ($encoding, gzip, $path) delivers to tracehop, whose file output matches",
    async ({ encoding, path }) => {
      dir = mkdtempSync(join(tmpdir(), 'tracehop-interop-'));
      const collectorPort = await freePort();
      const tracehopPort = await freePort();
      const tracehopOut = join(dir, 'spans.jsonl');

      const tracehop = await startTracehop(
        otlpPipeline(tracehopPort, 'file', { path: tracehopOut, flush_interval: 0 }),
        dir,
      );
      peers.push(tracehop);
      const collector = await startCollector(
        binary(),
        {
          receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${collectorPort}` } } } },
          exporters: {
            otlp_http: {
              traces_endpoint: `http://127.0.0.1:${tracehopPort}${path}`,
              encoding,
              compression: 'gzip',
              // Synchronous and without retries: the Collector answers our POST with tracehop's
              // verdict, so a refusal shows up here instead of as a missing line later.
              sending_queue: { enabled: false },
              retry_on_failure: { enabled: false },
            },
          },
          service: {
            telemetry: QUIET_TELEMETRY,
            pipelines: { traces: { receivers: ['otlp'], exporters: ['otlp_http'] } },
          },
        },
        dir,
      );
      peers.push(collector);

      const sent = fixtureRequest();
      const answer = await postJson(`http://127.0.0.1:${collectorPort}/v1/traces`, sent);
      expect(answer.status, `${answer.text}\ncollector output:\n${collector.output().slice(-3000)}`).toBe(200);

      const lines = await waitForLines(tracehopOut, (l) => l.length, FIXTURE_SPAN_COUNT, 30_000, () =>
        `tracehop output:\n${tracehop.output().slice(-3000)}`,
      );
      expect(lines).toHaveLength(FIXTURE_SPAN_COUNT);
      const records = fromSpanRecords(lines.map((l) => parseExact(l) as Json));
      expect(records).toEqual(toPlain(fromOtlpJson([sent])));
    },
  );
});
