// The real OpenTelemetry Python SDK (from PyPI, pinned in requirements.txt) with its OTLP/HTTP protobuf
// exporter, unmodified, delivers to tracehop's otlp receiver; tracehop's file output must hold every span
// exactly as the SDK recorded it (send_spans.py prints the SDK's own view of what it exported).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/process.ts';
import { PYTHON_DIR, VENV_SETUP_TIMEOUT_MS, venvPython } from './venv.ts';
import { waitForLines } from '../interop/files.ts';
import { fromSpanRecords, parseExact, sortSpans, type Comparable, type Plain } from '../interop/otlp-fixture.ts';
import { freePort } from '../interop/ports.ts';
import { otlpPipeline, startTracehop, type Tracehop } from '../interop/tracehop.ts';

type Json = Record<string, unknown>;

interface SentSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: number;
  start_ns: string;
  end_ns: string;
  status_code: number;
  status_message: string | null;
  attributes: Record<string, Plain>;
  events: Array<{ name: string; time_ns: string; attributes: Record<string, Plain> }>;
  links: Array<{ trace_id: string; span_id: string; attributes: Record<string, Plain> }>;
  resource: Record<string, Plain>;
  scope: { name: string; version: string | null };
}

/** The SDK's view in the comparable shape. Flags are left out: the SDK adds W3C "is remote" bits
 *  that are its business, and they are compared by the Collector interop test. */
function expected(spans: SentSpan[]): Comparable<Plain>[] {
  return sortSpans(
    spans.map((s) => ({
      traceId: s.trace_id,
      spanId: s.span_id,
      parentId: s.parent_id ?? undefined,
      name: s.name,
      kind: s.kind,
      startNs: s.start_ns,
      endNs: s.end_ns,
      statusCode: s.status_code,
      statusMessage: s.status_message ?? undefined,
      traceState: undefined,
      flags: undefined,
      attributes: s.attributes,
      events: s.events.map((e) => ({ name: e.name, timeNs: e.time_ns, attributes: e.attributes })),
      links: s.links.map((l) => ({ traceId: l.trace_id, spanId: l.span_id, attributes: l.attributes })),
      resource: s.resource,
      // OTLP has no "absent" string: the SDK's default version "" is the same as none on the wire.
      scope: { name: s.scope.name, version: s.scope.version || undefined, attributes: {} },
      resourceSchemaUrl: undefined,
      scopeSchemaUrl: undefined,
    })),
  );
}

describe('the OpenTelemetry Python SDK delivers to tracehop', () => {
  let python = '';
  let dir = '';
  let tracehop: Tracehop | undefined;

  beforeAll(async () => {
    python = await venvPython();
  }, VENV_SETUP_TIMEOUT_MS);

  afterEach(async () => {
    const running = tracehop;
    tracehop = undefined;
    try {
      await running?.stop();
    } finally {
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
      dir = '';
    }
  });

  it.each(['gzip', 'none'])(
    'via the OTLP/HTTP protobuf exporter (compression %s): every span arrives intact',
    async (compression) => {
      dir = mkdtempSync(join(tmpdir(), 'tracehop-python-'));
      const port = await freePort();
      const out = join(dir, 'spans.jsonl');
      tracehop = await startTracehop(otlpPipeline(port, 'file', { path: out, flush_interval: 0 }), dir);

      const sender = await runProcess(python, [
        join(PYTHON_DIR, 'send_spans.py'),
        '--endpoint',
        `http://127.0.0.1:${port}/v1/traces`,
        '--compression',
        compression,
      ]);
      expect(sender.code, `send_spans.py failed:\n${sender.stderr.slice(-3000)}\n${tracehop.output().slice(-2000)}`).toBe(0);
      const manifest = parseExact(sender.stdout) as { export: string; spans: SentSpan[] };
      expect(manifest.export).toBe('SUCCESS');
      expect(manifest.spans).toHaveLength(5);

      const running = tracehop;
      const lines = await waitForLines(out, (l) => l.length, manifest.spans.length, 30_000, () =>
        `tracehop output:\n${running.output().slice(-3000)}`,
      );
      expect(lines).toHaveLength(manifest.spans.length);
      const received = fromSpanRecords(lines.map((l) => parseExact(l) as Json)).map((span) => ({
        ...span,
        flags: undefined,
      }));
      expect(received).toEqual(expected(manifest.spans));
    },
  );
});
