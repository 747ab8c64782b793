// span-record.md: a record written by the JSON encoder, POSTed back to /tracing/spans/ingest, comes out
// byte-identical (flat shape). Here the "POST" is the receiver's own steps without the socket: the body
// reader (integers beyond 2^53 as bigint), the span checks, then the real namespace processor.
import { describe, expect, it } from 'vitest';
import { validator } from '../helpers/schema-validator.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { TracingBodyReader } from '../../codec/tracing/body-reader.ts';
import { TracingSpans } from '../../codec/tracing/spans.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { jsonLines } from '../helpers/json-lines.ts';
import type { Span } from '../../model/span.ts';
import { factory as namespace } from '../../processors/namespace/factory.ts';

function processors(): SyncProcessor[] {
  return [namespace].map((f) => {
    const config: Record<string, unknown> = {};
    if (!validator(f.schema)(config)) throw new Error(`default config of ${f.type} is invalid`);
    return f.create(config as never, { id: f.type, logger: silentLogger }) as SyncProcessor;
  });
}

/** The http receiver's path for one `{"spans": [...]}` body: the reader, the checks, the synchronous processors. */
function ingest(body: string): Span[] {
  const value = new TracingBodyReader(64).read(Buffer.from(body), true) as { spans: unknown[] } | undefined;
  if (value === undefined) throw new Error('not JSON');
  const checked = new TracingSpans().check({ form: 'flat', spans: value.spans });
  expect(checked.rejections).toEqual([]);
  const batch: WorkingBatch = { origin: 'tracing', spans: checked.spans };
  for (const p of processors()) p.process(batch);
  return batch.spans;
}

/** Records as a request body: the JSON lines joined into the `spans` array. */
function asBody(lines: string): string {
  return '{"spans":[' + lines.trimEnd().split('\n').join(',') + ']}';
}

const T = '4bf92f3577b34da6a3ce929d0e0e4736';

// Client input covering every field of the record: parent and root, all enums, 19-digit and ISO times,
// status message, session/user, nested and flat attributes with an int64 beyond 2^53, events (one
// exception), links with OTLP extras, references, resource, scope and the span-level otlp member.
const clientSpans = [
  {
    trace_id: T, span_id: '00f067aa0ba902b7', span_name: 'agent', span_kind: 'SPAN_KIND_SERVER',
    start_time: '1776363498123456789', end_time: '2026-04-16T18:18:20.5Z', status_code: 'STATUS_CODE_OK',
    session_id: 's-old', user_id: 'u-1',
    attributes: {
      ag: { type: { span: 'agent' }, data: { inputs: { docs: [{ text: 'a' }, { text: 'b' }], ids: [1, 2] } } },
      'ag.session.id': 's-9', 'ag.references.application.id': '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736',
      'ag.references.evaluator.version': 3, 'ag.custom': 1, 'http.route': '/x', 'big.count': '__BIG__',
      'mixed.list': ['a', 1, true, null], 'unicode': 'héllo "world"\n',
    },
    resource: { 'service.name': 'shop', host: { name: 'h1' } },
    scope: { name: 'openai-instrumentation', version: '1.2.0', attributes: { 'lib.flag': true } },
    otlp: { trace_state: 'rojo=00f067aa0ba902b7', flags: 1, dropped_attributes_count: 2, dropped_events_count: 0,
      dropped_links_count: 1, resource_schema_url: 'https://opentelemetry.io/schemas/1.26.0', scope_schema_url: 'https://s' },
  },
  {
    trace_id: T, span_id: 'a1b2c3d4e5f60718', parent_id: '00f067aa0ba902b7', span_name: 'chat',
    span_kind: 'SPAN_KIND_CLIENT', span_type: 'chat', start_time: 1776363498500, end_time: '1776363499123456789',
    status_code: 'STATUS_CODE_ERROR', status_message: 'rate limited',
    attributes: { 'ag.data.inputs': '{"q":"hi"}', 'ag.data.outputs': 'hello', 'ag.metrics.tokens.incremental.prompt': 5,
      'gen_ai.request.model': 'gpt-4o', 'ratio': 0.1 },
    events: [
      { name: 'exception', timestamp: '2026-04-16T18:18:19.000000001Z', attributes: { 'exception.message': 'boom' },
        otlp: { dropped_attributes_count: 4 } },
      { name: 'log', timestamp: 1776363499 },
    ],
    links: [
      { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', attributes: { key: 'x' } },
      { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'c7ad6b7169203331',
        otlp: { trace_state: 'k=v', flags: 257, dropped_attributes_count: 3 } },
    ],
    references: [{ id: '4bf92f3577b34da6a3ce929d0e0e4736', slug: 'my-app', version: 'v2', attributes: { key: 'application' } }],
  },
  {
    trace_id: '11111111111111111111111111111111', span_id: '2222222222222222', span_name: 'bare',
    start_time: '2026-04-16T18:18:18Z', end_time: '2026-04-16T18:18:18Z', links: [],
  },
];
// An int64 beyond 2^53 as the client writes it: a bare number literal, which JSON.stringify cannot make.
const firstBody = JSON.stringify({ spans: clientSpans }).replace('"__BIG__"', '9223372036854775807');

describe('JSON record round trip through the tracing API path', () => {
  it('a written record, posted back, is written again byte for byte', () => {
    const written = jsonLines(ingest(firstBody));
    // The first pass really carried what the round trip is meant to exercise.
    expect(written).toContain('"big.count":9223372036854775807');
    expect(written).toContain('"start_time":"2026-04-16T18:18:18.123456789Z"');
    expect(written).toContain('"otlp":{"dropped_attributes_count":4}');
    expect(written).toContain('"otlp":{"trace_state":"k=v","flags":257,"dropped_attributes_count":3}');
    expect(written).toContain('"scope_schema_url":"https://s"}}');
    expect(written.split('\n').length).toBe(4);

    const again = jsonLines(ingest(asBody(written)));
    expect(again).toBe(written);
  });
});
