import { describe, expect, it } from 'vitest';
import { decodeExportRequestJson, ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { decodeExportRequest } from '../../test/helpers/otlp-decode.ts';
import { BatchLinesEncoder, encodeSpanJson } from '../../codec/record/index.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { messageHeaders, ProjectHeaders, traceEncoder } from './encoding.ts';
import { BATCH_OVERHEAD, planJsonMessages, planTraceMessages, requestBounds, spansOf, type MessagePlan, type PlanOptions } from './messages.ts';

const requestEncoder = new ExportRequestEncoder();

let next = 1;
function span(traceId: string, payload = 0): Span {
  const n = next++;
  return {
    traceId,
    spanId: n.toString(16).padStart(16, '0'),
    name: `s${n}`,
    kind: 1,
    startNs: 1_000_000_000n * BigInt(n),
    endNs: 1_000_000_000n * BigInt(n) + 5n,
    status: { code: 0 },
    attributes: new AttributeList([['p', 'x'.repeat(payload)]]),
  };
}

/** Whether the first message values of two plans start at the same memory (small buffers share Node's pool). */
function sameStart(a: MessagePlan, b: MessagePlan): boolean {
  const x = a.messages[0].value!;
  const y = b.messages[0].value!;
  return x.buffer === y.buffer && x.byteOffset === y.byteOffset;
}

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

function options(maxMessageBytes: number, encoding: 'json' | 'otlp_proto' | 'otlp_json' = 'json'): PlanOptions {
  const headers = new ProjectHeaders(messageHeaders(encoding, { team: 'llm' }));
  return { topic: 't', headersFor: (project) => headers.for(project), maxMessageBytes };
}

describe('json messages', () => {
  it('one message per span, key = trace id, value = the span record, in batch order', () => {
    const spans = [span(A), span(B), span(A)];
    const plan = planJsonMessages(spans, options(1_000_000));
    expect(plan.messages.map((m) => m.key!.toString())).toEqual([A, B, A]);
    expect(plan.messages.map((m) => m.value!.toString())).toEqual(spans.map((s) => encodeSpanJson(s)));
    expect(spansOf(plan, 0, 3)).toEqual(spans);
    expect(plan.tooLarge).toEqual([]);
  });

  it('values are exact records when strings hold newlines and multi-byte text, and a released plan\'s memory is reused', () => {
    const lines = new BatchLinesEncoder();
    const tricky = span(A);
    tricky.name = 'line one\nline two\r\n日本 ✨ 🙂';
    tricky.attributes = new AttributeList([['text', 'a\nb\u2028c'], ['control', '\u0000\u000a\u001f']]);
    const first = [span(A), tricky, span(B)];
    const held = planJsonMessages(first, options(1_000_000), lines);
    const second = [tricky, span(B)];
    let next = planJsonMessages(second, options(1_000_000), lines);
    expect(sameStart(next, held)).toBe(false);
    // Once more, so that the buffer is sized from these spans (the encoder sizes it from the last batch):
    // the third plan of them then fits into the second's memory.
    next.release();
    next = planJsonMessages(second, options(1_000_000), lines);
    next.release();
    const third = second;
    const reused = planJsonMessages(third, options(1_000_000), lines);
    expect(sameStart(reused, next)).toBe(true);
    for (const [plan, spans] of [[held, first], [reused, third]] as const) {
      expect(plan.messages.map((m) => m.value!.toString())).toEqual(spans.map((s) => encodeSpanJson(s)));
    }
  });

  it('sets aside a span whose message alone would pass max_message_bytes, keeping the others', () => {
    const big = span(A, 5000);
    const spans = [span(A), big, span(B)];
    const plan = planJsonMessages(spans, options(4096));
    expect(plan.tooLarge).toEqual([big]);
    expect(plan.tooLargeBytes).toBe(Buffer.byteLength(encodeSpanJson(big)));
    expect(spansOf(plan, 0, plan.messages.length)).toEqual([spans[0], spans[2]]);
  });

  it('carries content-type, tracehop-encoding and the static headers', () => {
    const plan = planJsonMessages([span(A)], options(1_000_000));
    const headers = [...(plan.messages[0].headers as Map<Buffer, Buffer>)].map(([k, v]) => [k.toString(), v.toString()]);
    expect(headers).toEqual([
      ['content-type', 'application/json'],
      ['tracehop-encoding', 'span-record-v1'],
      ['team', 'llm'],
    ]);
  });
});

describe('trace messages (otlp)', () => {
  it('one message per trace, traces in order of first appearance, spans in batch order', () => {
    const spans = [span(A), span(B), span(A), span(B), span(A)];
    const plan = planTraceMessages(spans, traceEncoder('otlp_proto'), options(1_000_000, 'otlp_proto'));
    expect(plan.messages.map((m) => m.key!.toString())).toEqual([A, B]);
    expect(decodeExportRequest(plan.messages[0].value!).spans.map((s) => s.spanId)).toEqual([spans[0], spans[2], spans[4]].map((s) => s.spanId));
    expect(spansOf(plan, 1, 2)).toEqual([spans[1], spans[3]]);
  });

  it('cuts a trace too big for one message into consecutive parts under the limit, same key', () => {
    const spans = Array.from({ length: 50 }, () => span(A, 300));
    const limit = 3000;
    const plan = planTraceMessages(spans, traceEncoder('otlp_proto'), options(limit, 'otlp_proto'));
    expect(plan.messages.length).toBeGreaterThan(5);
    for (let i = 0; i < plan.messages.length; i++) {
      expect(plan.messages[i].key!.toString()).toBe(A);
      expect(plan.sizes[i] + BATCH_OVERHEAD).toBeLessThanOrEqual(limit);
    }
    const decoded = plan.messages.flatMap((m) => decodeExportRequest(m.value!).spans.map((s) => s.spanId));
    expect(decoded).toEqual(spans.map((s) => s.spanId));
    expect(plan.tooLarge).toEqual([]);
  });

  it('sets aside only the single span that cannot fit, keeping the rest of its trace', () => {
    const big = span(A, 4000);
    const spans = [span(A), span(A), big, span(A)];
    const plan = planTraceMessages(spans, traceEncoder('otlp_proto'), options(2048, 'otlp_proto'));
    expect(plan.tooLarge).toEqual([big]);
    expect(spansOf(plan, 0, plan.messages.length)).toEqual([spans[0], spans[1], spans[3]]);
    expect(plan.tooLargeBytes).toBe(requestEncoder.encode([big]).length);
  });

  it('otlp_proto writes the next plan into the memory of a released one, and never into one still held', () => {
    const encoder = traceEncoder('otlp_proto');
    const opts = options(1_000_000, 'otlp_proto');
    const ids = (plan: MessagePlan) =>
      plan.messages.flatMap((m) => decodeExportRequest(m.value!).spans.map((s) => s.spanId));
    const first = [span(A, 50), span(B, 50)];
    const held = planTraceMessages(first, encoder, opts);
    const second = [span(A, 60), span(B), span(A)];
    const next = planTraceMessages(second, encoder, opts);
    // `held` was not released: `next` went elsewhere and both read back whole.
    expect(sameStart(next, held)).toBe(false);
    expect(ids(held)).toEqual(first.map((s) => s.spanId));
    next.release();
    const third = [span(B, 70), span(A, 10)];
    const reused = planTraceMessages(third, encoder, opts);
    expect(sameStart(reused, next)).toBe(true);
    expect(ids(reused)).toEqual(third.map((s) => s.spanId));
    expect(reused.messages.map((m) => Buffer.from(m.value!)))
      .toEqual(planTraceMessages(third, traceEncoder('otlp_proto'), opts).messages.map((m) => Buffer.from(m.value!)));
    expect(ids(held)).toEqual(first.map((s) => s.spanId));
  });

  it('otlp_proto lets a writer grown by huge spans go once calls are normal again', () => {
    const encoder = traceEncoder('otlp_proto');
    const opts = options(16_000_000, 'otlp_proto');
    const huge = planTraceMessages([span(A, 3_000_000)], encoder, opts);
    huge.release();
    const normal = planTraceMessages([span(B, 50)], encoder, opts);
    expect(sameStart(normal, huge)).toBe(false);
    expect(decodeExportRequest(normal.messages[0].value!).spans).toHaveLength(1);
    // A writer of normal size is still used again.
    normal.release();
    expect(sameStart(planTraceMessages([span(A, 60)], encoder, opts), normal)).toBe(true);
  });

  it('otlp_json cuts a trace too big for one message too, and sets aside a span too large alone', () => {
    const big = span(A, 4000);
    const spans = [...Array.from({ length: 30 }, () => span(A, 300)), big, span(A)];
    const plan = planTraceMessages(spans, traceEncoder('otlp_json'), options(3000, 'otlp_json'));
    expect(plan.messages.length).toBeGreaterThan(5);
    for (let i = 0; i < plan.messages.length; i++) expect(plan.sizes[i] + BATCH_OVERHEAD).toBeLessThanOrEqual(3000);
    const decoded = plan.messages.flatMap((m) => decodeExportRequestJson(m.value!).spans.map((s) => s.spanId));
    expect(decoded).toEqual(spans.filter((s) => s !== big).map((s) => s.spanId));
    expect(plan.tooLarge).toEqual([big]);
  });
});

describe('produce requests', () => {
  it('packs messages in order into requests whose records stay under max_message_bytes', () => {
    const spans = Array.from({ length: 40 }, () => span(A, 200));
    const plan = planJsonMessages(spans, options(2000));
    const bounds = requestBounds(plan, 2000);
    expect(bounds[0]).toBe(0);
    expect(bounds[bounds.length - 1]).toBe(40);
    expect(bounds.length).toBeGreaterThan(3);
    for (let r = 0; r < bounds.length - 1; r++) {
      expect(bounds[r + 1]).toBeGreaterThan(bounds[r]);
      let bytes = BATCH_OVERHEAD;
      for (let i = bounds[r]; i < bounds[r + 1]; i++) bytes += plan.sizes[i];
      expect(bytes).toBeLessThanOrEqual(2000);
    }
  });

  it('makes no request for an empty plan', () => {
    expect(requestBounds(planJsonMessages([], options(2000)), 2000)).toEqual([0]);
  });
});

describe('the project header', () => {
  const header = (m: { headers?: Map<Buffer, Buffer> | unknown }, name: string) => {
    for (const [k, v] of (m.headers as Map<Buffer, Buffer>)) if (k.toString() === name) return v.toString();
    return undefined;
  };

  it('a message carries tracehop-project when its spans were accepted with a key of a project', () => {
    const a = { ...span('a'.repeat(32)), project: 'proj-a' };
    const b = { ...span('a'.repeat(32), 0), spanId: 'c'.repeat(16), project: 'proj-b' };
    const none = span('b'.repeat(32));
    const json = planJsonMessages([a, none], options(1_000_000));
    expect(json.messages.map((m) => header(m, 'tracehop-project'))).toEqual(['proj-a', undefined]);
    expect(json.messages.map((m) => header(m, 'team'))).toEqual(['llm', 'llm']);
    // One trace id sent under two projects stays two messages, each with its project.
    const traces = planTraceMessages([a, b, none], traceEncoder('otlp_proto'), options(1_000_000, 'otlp_proto'));
    expect(traces.messages.map((m) => [m.key?.toString(), header(m, 'tracehop-project')])).toEqual([
      ['a'.repeat(32), 'proj-a'], ['a'.repeat(32), 'proj-b'], ['b'.repeat(32), undefined],
    ]);
  });
});
