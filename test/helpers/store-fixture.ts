// Fixture F of read-api.md §12, as the http receiver would hand it to the pipeline: the body reader, the
// span checks and the real namespace processor. Shared by the store's read tests. Also the config of a
// daemon whose http receiver reads from a store.
import { validator } from './schema-validator.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import { TracingSpans } from '../../codec/tracing/spans.ts';
import { silentLogger } from '../../pipeline/log.ts';
import type { Span } from '../../model/span.ts';
import { factory as namespace } from '../../processors/namespace/factory.ts';

export const T = '4bf92f3577b34da6a3ce929d0e0e4736';
export const T2 = '0af7651916cd43dd8448eb211c80319c';
export const A = '00f067aa0ba902b7';
export const B = 'a1b2c3d4e5f60718';
export const C = 'b1b2c3d4e5f60718';
export const D = 'c1b2c3d4e5f60718';
export const E = 'e1b2c3d4e5f60718';
export const G = 'f1b2c3d4e5f60718';

const at = (time: string) => `2026-04-16T${time}Z`;

export const FIXTURE_F = [
  { trace_id: T, span_id: A, span_name: 'agent', start_time: at('18:18:18'), end_time: at('18:18:20'),
    attributes: { ag: { type: { span: 'agent' }, data: { inputs: { q: 'hi' } } } } },
  { trace_id: T, span_id: B, parent_id: A, span_name: 'llm', start_time: at('18:18:18.5'), end_time: at('18:18:19'),
    attributes: { ag: { type: { span: 'llm' } }, score: 0.9 } },
  { trace_id: T, span_id: C, parent_id: A, span_name: 'llm', start_time: at('18:18:19'), end_time: at('18:18:19.5'),
    status_code: 'STATUS_CODE_ERROR' },
  { trace_id: T, span_id: D, parent_id: 'd1b2c3d4e5f60718', span_name: 'late', start_time: at('18:18:17'), end_time: at('18:18:17.5') },
  { trace_id: T, span_id: E, span_name: 'feedback', start_time: at('18:18:21'), end_time: at('18:18:22') },
  { trace_id: T2, span_id: G, span_name: 'chat', start_time: at('18:20:00'), end_time: at('18:20:01'),
    attributes: { 'tags.created_at': '2026-04-16T10:00:00Z' } },
];

/** The simple traces of read-api.md §12 tests 23 and 24, as a client posts them. */
export const TEST_23 = {
  origin: 'auto', kind: 'play', channel: 'otlp', data: { outputs: { score: 5 }, note: 'x' },
  links: [{ trace_id: T, span_id: A }, { trace_id: T2, span_id: G }],
};
export const TEST_24 = {
  data: { outputs: 1 },
  links: { invocation: { trace_id: T, span_id: A } },
  references: { evaluator: { slug: 'user-feedback' }, workflow: { slug: 'w' } },
};

/** Flat spans through the checks and the namespace processor, stamped with `project`. */
export function ingested(spans: unknown[], project?: string): Span[] {
  const checked = new TracingSpans().check({ form: 'flat', spans });
  if (checked.rejections.length > 0) throw new Error(JSON.stringify(checked.rejections));
  const config: Record<string, unknown> = {};
  validator(namespace.schema)(config);
  const processor = namespace.create(config as never, { id: 'namespace', logger: silentLogger }) as SyncProcessor;
  const batch: WorkingBatch = { origin: 'tracing', spans: checked.spans };
  processor.process(batch);
  for (const span of batch.spans) span.project = project;
  return batch.spans;
}

/** A daemon whose http receiver (any free port) writes into a store and reads from it. */
export const STORE_DAEMON_CONFIG = `
receivers:
  http:
    endpoint: 127.0.0.1:0
processors:
  batch: {timeout: 10ms}
exporters:
  store: {}
service:
  pipelines:
    traces:
      receivers: [http]
      processors: [namespace, batch]
      exporters: [store]
`;

/** Every route of read-api.md §1.2 (method, path with `{id}` for a trace id), for the 401 and 501 checks of §12 test 35. */
export const READ_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/tracing/traces/{id}'], ['DELETE', '/tracing/traces/{id}'], ['PATCH', '/tracing/traces/{id}'],
  ['POST', '/tracing/spans/query'], ['GET', '/traces/{id}'], ['GET', '/traces/?trace_id={id}'], ['DELETE', '/traces/{id}'],
  ['POST', '/spans/query'], ['POST', '/traces/query'], ['GET', '/simple/traces/{id}'], ['PATCH', '/simple/traces/{id}'],
  ['DELETE', '/simple/traces/{id}'], ['POST', '/simple/traces/query'],
];
