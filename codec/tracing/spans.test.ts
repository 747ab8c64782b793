import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../json/parse.ts';
import { TracingSpans, type CheckedSpans } from './spans.ts';
import { AttributeList } from '../../model/attributes/list.ts';

/** One checker for the file, as a receiver keeps one across requests. */
const checker = new TracingSpans();

/** A tracing body's spans checked, as the receiver's edge checks them (no HTTP). */
function ingest(body: { spans?: unknown[]; traces?: Record<string, unknown> }): CheckedSpans {
  return checker.check(body.spans !== undefined ? { form: 'flat', spans: body.spans } : { form: 'tree', traces: body.traces ?? {} });
}

/** Reasons up to the colon: the part tests may match (ingest-api.md §5.1). */
function reasons(batch: CheckedSpans): string[] {
  return batch.rejections.map((r) => r.reason.split(':')[0]);
}

/** The one reason a single flat span gets (or 'accepted'). */
function reasonFor(span: unknown): string {
  const b = ingest({ spans: [span] });
  return b.spans.length === 1 ? 'accepted' : reasons(b)[0];
}

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const T2 = '5bf92f3577b34da6a3ce929d0e0e4736';
const S = '00f067aa0ba902b7';
const S2 = 'a1b2c3d4e5f60718';
const OK = { trace_id: T, span_id: S, start_time: 1776363498, end_time: 1776363499 };
const SEC = 1_000_000_000n;

describe('duplicates (§5.3)', () => {
  it('collapse only when trace and span id both match: one span id in two traces stays two spans', () => {
    const span = (trace: string, name: string) => ({ ...OK, trace_id: trace, span_name: name });
    const b = ingest({ spans: [span(T, 'a1'), span(T2, 'b1'), span(T, 'a2'), span(T2, 'b2'), span(T2, 'b3'), { ...OK, span_id: S2, span_name: 'c' }] });
    expect(b.spans.map((s) => [s.traceId, s.spanId, s.name])).toEqual([[T, S, 'a2'], [T2, S, 'b3'], [T, S2, 'c']]);
  });
});

describe('§5.4 mixed request', () => {
  it('one accepted (the later duplicate at the first position), two rejected in index order', () => {
    const b = ingest({
      spans: [
        { trace_id: '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', span_id: '00F067AA0BA902B7', span_name: 'root',
          start_time: 1776363498, end_time: '2026-04-16T18:18:20.5Z', attributes: { ag: { type: { span: 'workflow' } } } },
        { trace_id: T, span_id: S2, span_kind: 'SERVER', start_time: 1776363498, end_time: 1776363499 },
        'not a span',
        { trace_id: T, span_id: S, span_name: 'root-again', start_time: 1776363498, end_time: 1776363499 },
      ],
    });
    expect(b.spans.map((s) => [s.traceId, s.spanId, s.name])).toEqual([[T, S, 'root-again']]);
    expect(b.rejections).toEqual([
      { index: 1, path: 'spans[1]', trace_id: T, span_id: S2, reason: 'invalid span_kind' },
      { index: 2, path: 'spans[2]', reason: 'invalid span: expected an object' },
    ]);
    // documented key order of a rejection entry
    expect(Object.keys(b.rejections[0])).toEqual(['index', 'path', 'trace_id', 'span_id', 'reason']);
  });
});

describe('§3.3 tree form', () => {
  it('the worked example: names, inherited trace and parent ids, pre-order', () => {
    const b = ingest({
      traces: { [T]: { spans: {
        agent: { span_id: '00f067aa0ba902b7', start_time: '2026-04-16T18:18:18Z', end_time: '2026-04-16T18:18:20Z',
          spans: { lookup: { span_id: 'a1b2c3d4e5f60718', start_time: '2026-04-16T18:18:18.5Z', end_time: '2026-04-16T18:18:19Z' } } },
        retry: [{ span_id: 'b1b2c3d4e5f60718', start_time: 1776363500, end_time: 1776363501 },
          { span_id: 'c1b2c3d4e5f60718', start_time: 1776363502, end_time: 1776363503 }],
      } } },
    });
    expect(b.rejections).toEqual([]);
    expect(b.spans.map((s) => [s.name, s.traceId, s.spanId, s.parentId])).toEqual([
      ['agent', T, '00f067aa0ba902b7', undefined],
      ['lookup', T, 'a1b2c3d4e5f60718', '00f067aa0ba902b7'],
      ['retry', T, 'b1b2c3d4e5f60718', undefined],
      ['retry', T, 'c1b2c3d4e5f60718', undefined],
    ]);
    expect(b.spans[1].startNs).toBe(1776363498n * SEC + 500_000_000n);
    expect(b.spans[0].parentId).toBeUndefined();
  });

  it('explicit values win over inherited ones, and descendants inherit the explicit ones', () => {
    const b = ingest({
      traces: { [T]: { spans: { a: { ...OK, trace_id: undefined, span_name: 'named',
        spans: { b: { ...OK, trace_id: T2, span_id: S2, parent_id: 'c1b2c3d4e5f60718',
          spans: { c: { ...OK, trace_id: undefined, span_id: 'd1b2c3d4e5f60718' } } } } } } } },
    });
    expect(b.spans.map((s) => [s.name, s.traceId, s.parentId])).toEqual([
      ['named', T, undefined],
      ['b', T2, 'c1b2c3d4e5f60718'],
      ['c', T2, S2],
    ]);
  });

  it('a dashed / uppercase trace key is inherited in normalised form', () => {
    const b = ingest({ traces: { '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736': { spans: { a: { ...OK, trace_id: null } } } } });
    expect(b.spans[0].traceId).toBe(T);
  });

  it('top level: an invalid trace key gives missing trace_id; children then cannot inherit it', () => {
    const b = ingest({ traces: { 'not-a-trace': { spans: { a: { ...OK, trace_id: undefined,
      spans: { b: { ...OK, trace_id: undefined, span_id: S2 }, c: { ...OK, span_id: 'c1b2c3d4e5f60718' } } } } } } });
    expect(reasons(b)).toEqual(['missing trace_id', 'cannot inherit trace_id']);
    // c has its own trace_id and still inherits parent_id from a (a's span_id is valid)
    expect(b.spans.map((s) => [s.name, s.parentId])).toEqual([['c', S]]);
    // an inherited trace_id is not shown; the span_id as sent is
    expect(b.rejections[1]).toEqual({ index: 1, path: 'traces.not-a-trace.spans.a.spans.b', span_id: S2,
      reason: 'cannot inherit trace_id' });
  });

  it('a child of a node with an invalid trace_id cannot inherit it', () => {
    const b = ingest({ traces: { [T]: { spans: { a: { ...OK, trace_id: 'bad', spans: { b: { ...OK, trace_id: undefined, span_id: S2 } } } } } } });
    expect(reasons(b)).toEqual(['invalid trace_id', 'cannot inherit trace_id']);
    expect(b.rejections[0].trace_id).toBe('bad');
  });

  it('cannot inherit parent_id when the parent span_id is missing, invalid or all zero', () => {
    for (const spanId of [undefined, 'xyz', '0000000000000000']) {
      const b = ingest({ traces: { [T]: { spans: { a: { ...OK, span_id: spanId, spans: { b: { ...OK, trace_id: undefined, span_id: S2 } } } } } } });
      expect(reasons(b)[1]).toBe('cannot inherit parent_id');
    }
  });

  it('a rejected parent passes on its valid ids; its children are judged on their own', () => {
    const b = ingest({ traces: { [T]: { spans: { a: { ...OK, start_time: undefined,
      spans: { b: { ...OK, trace_id: undefined, span_id: S2 } } } } } } });
    expect(reasons(b)).toEqual(['missing start_time']);
    expect(b.spans.map((s) => [s.spanId, s.traceId, s.parentId])).toEqual([[S2, T, S]]);
  });

  it('an explicit all-zero parent_id on a child makes it a root', () => {
    const b = ingest({ traces: { [T]: { spans: { a: { ...OK, spans: { b: { ...OK, span_id: S2, parent_id: '0000000000000000' } } } } } } });
    expect(b.spans[1].parentId).toBeUndefined();
  });

  it('top-level lists; non-object nodes and elements are rejected with their paths', () => {
    const b = ingest({ traces: { [T]: { spans: { r: [{ ...OK, trace_id: undefined }, 'x', [OK]], s: 7 } } } });
    expect(b.spans.map((s) => s.name)).toEqual(['r']);
    expect(b.rejections.map((r) => [r.index, r.path, r.reason])).toEqual([
      [1, `traces.${T}.spans.r[1]`, 'invalid span: expected an object'],
      [2, `traces.${T}.spans.r[2]`, 'invalid span: expected an object'],
      [3, `traces.${T}.spans.s`, 'invalid span: expected an object'],
    ]);
  });

  it('invalid spans: the node is rejected, its children are not visited', () => {
    const b = ingest({ traces: { [T]: { spans: { a: { ...OK, spans: [{ ...OK, span_id: S2 }] }, b: { ...OK, span_id: S2 } } } } });
    expect(reasons(b)).toEqual(['invalid spans']);
    expect(b.rejections[0].index).toBe(0);
    expect(b.spans.map((s) => [s.name, s.spanId])).toEqual([['b', S2]]);
    // an earlier failing field is reported instead
    expect(reasons(ingest({ traces: { [T]: { spans: { a: { ...OK, span_kind: 'X', spans: 'no' } } } } }))).toEqual(['invalid span_kind']);
  });

  it('span ids of one request across flat duplicates in a tree collapse too', () => {
    const b = ingest({ traces: { [T]: { spans: { a: [{ ...OK, span_name: 'first' }, { ...OK, span_name: 'second' }] } } } });
    expect(b.spans.map((s) => s.name)).toEqual(['second']);
  });
});

describe('§4.1 reasons (first failing field only)', () => {
  it.each([
    ['missing trace_id', { ...OK, trace_id: undefined }],
    ['missing trace_id', { ...OK, trace_id: null }],
    ['invalid trace_id', { ...OK, trace_id: S }],
    ['invalid trace_id', { ...OK, trace_id: 42 }],
    ['missing span_id', { ...OK, span_id: undefined }],
    ['invalid span_id', { ...OK, span_id: 'abc123abc123abc' }],
    ['invalid span_id', { ...OK, span_id: '0000000000000000' }],
    ['invalid parent_id', { ...OK, parent_id: 'nope' }],
    ['invalid parent_id', { ...OK, parent_id: 17 }],
    ['missing start_time', { ...OK, start_time: undefined }],
    ['invalid start_time', { ...OK, start_time: 123456 }],
    ['missing end_time', { ...OK, end_time: null }],
    ['invalid end_time', { ...OK, end_time: 'yesterday' }],
    ['invalid span_name', { ...OK, span_name: 5 }],
    ['invalid span_kind', { ...OK, span_kind: 'SERVER' }],
    ['invalid span_kind', { ...OK, span_kind: 2 }],
    ['invalid span_type', { ...OK, span_type: 'bot' }],
    ['invalid span_type', { ...OK, span_type: 'LLM' }],
    ['invalid trace_type', { ...OK, trace_type: 'eval' }],
    ['invalid status_code', { ...OK, status_code: 'OK' }],
    ['invalid status_message', { ...OK, status_message: { a: 1 } }],
    ['invalid attributes', { ...OK, attributes: [1] }],
    ['invalid attributes', { ...OK, attributes: 'x' }],
    ['invalid events', { ...OK, events: {} }],
    ['invalid links', { ...OK, links: 'x' }],
    ['invalid references', { ...OK, references: {} }],
    ['invalid session_id', { ...OK, session_id: 7 }],
    ['invalid user_id', { ...OK, user_id: true }],
    ['invalid resource', { ...OK, resource: [] }],
    ['invalid scope', { ...OK, scope: 'lib' }],
    ['invalid scope', { ...OK, scope: { version: '1' } }],
    ['invalid scope', { ...OK, scope: { name: 'lib', attributes: 3 } }],
    ['invalid span', 5],
    ['invalid span', null],
    ['invalid span', [OK]],
  ])('%s', (reason, span) => {
    expect(reasonFor(span)).toBe(reason);
  });

  it('end before start is accepted', () => {
    expect(reasonFor({ ...OK, start_time: 1776363499, end_time: 1776363498 })).toBe('accepted');
  });

  it('only the first failing field in table order is reported', () => {
    expect(reasonFor({ trace_id: 'x', span_id: 'y' })).toBe('invalid trace_id');
    expect(reasonFor({ ...OK, span_id: 'y', start_time: 'z' })).toBe('invalid span_id');
    expect(reasonFor({ ...OK, end_time: 'z', span_kind: 'X', attributes: 1 })).toBe('invalid end_time');
    expect(reasonFor({ ...OK, status_code: 'X', events: 1 })).toBe('invalid status_code');
    expect(reasonFor({ ...OK, links: 1, user_id: 1 })).toBe('invalid links');
  });

  it('a rejection shows trace_id / span_id as sent, only when strings', () => {
    const b = ingest({ spans: [{ ...OK, trace_id: '4BF9', span_id: 12 }] });
    expect(b.rejections).toEqual([{ index: 0, path: 'spans[0]', trace_id: '4BF9', reason: expect.stringMatching(/^invalid trace_id/) }]);
  });

  it('unknown and backend-only keys are accepted and not carried', () => {
    const b = ingest({ spans: [{ ...OK, agent_id: 'x', hashes: [1], exception: {}, created_at: 'x', whatever: 1 }] });
    expect(b.spans).toHaveLength(1);
    expect(JSON.stringify(b.spans[0], (_k, v) => (typeof v === 'bigint' ? String(v) : v instanceof Map ? [...v] : v)))
      .not.toMatch(/agent_id|hashes|whatever|created_at/);
  });

  it('the otlp extension is ignored (not a rejection) when it holds unknown or mistyped members', () => {
    for (const otlp of [{ trace_state: 1 }, { flags: -1 }, { bogus: 1 }, 'x', { dropped_links_count: 1.5 }]) {
      const b = ingest({ spans: [{ ...OK, otlp }] });
      expect(b.spans).toHaveLength(1);
      expect(b.spans[0].otlp).toBeUndefined();
    }
  });
});

describe('§4.2 events, links, references', () => {
  it.each([
    ['invalid events[1]', { events: [{ name: 'a', timestamp: 1776363498 }, 'x'] }],
    ['missing events[0].name', { events: [{ timestamp: 1776363498 }] }],
    ['invalid events[0].name', { events: [{ name: 1, timestamp: 1776363498 }] }],
    ['missing events[0].timestamp', { events: [{ name: 'a' }] }],
    ['invalid events[0].timestamp', { events: [{ name: 'a', timestamp: 1776363498.5 }] }],
    ['invalid events[0].attributes', { events: [{ name: 'a', timestamp: 1776363498, attributes: [] }] }],
    ['invalid links[0]', { links: [null] }],
    ['missing links[0].trace_id', { links: [{ span_id: S }] }],
    ['invalid links[0].trace_id', { links: [{ trace_id: S, span_id: S }] }],
    ['missing links[0].span_id', { links: [{ trace_id: T }] }],
    ['invalid links[0].span_id', { links: [{ trace_id: T, span_id: '0000000000000000' }] }],
    ['invalid links[1].attributes', { links: [{ trace_id: T, span_id: S }, { trace_id: T, span_id: S, attributes: 'a' }] }],
    ['invalid references[0]', { references: [1] }],
    ['invalid references[0].id', { references: [{ id: 'not-a-uuid' }] }],
    ['invalid references[0].id', { references: [{ id: '0x' + T }] }],
    ['invalid references[0].slug', { references: [{ slug: 1 }] }],
    ['invalid references[0].version', { references: [{ version: 3 }] }],
    ['invalid references[0].attributes', { references: [{ attributes: [] }] }],
  ])('%s', (reason, extra) => {
    expect(reasonFor({ ...OK, ...extra })).toBe(reason);
  });

  it('normalised: ids, times, flattened attributes, attributes default {}, order kept', () => {
    const b = ingest({ spans: [{ ...OK,
      events: [{ name: 'exception', timestamp: '2026-04-16T18:18:19Z', attributes: { error: { type: 'X' } } },
        { name: 'b', timestamp: 1776363499123 }],
      links: [{ trace_id: T2.toUpperCase(), span_id: '0x' + S2, attributes: { 'k.a': 1, k: { b: 2 } } }, { trace_id: T, span_id: S }],
      references: [{ id: T.toUpperCase(), slug: 'app', version: '3', attributes: { key: 'application' } }, {}],
    }] });
    const s = b.spans[0];
    expect(s.events).toEqual([
      { name: 'exception', timeNs: 1776363499n * SEC, attributes: new AttributeList([['error.type', 'X']]) },
      { name: 'b', timeNs: 1776363499123_000_000n, attributes: new AttributeList() },
    ]);
    expect(s.links).toEqual([
      { traceId: T2, spanId: S2, attributes: new AttributeList([['k.a', 1], ['k.b', 2]]) },
      { traceId: T, spanId: S, attributes: new AttributeList() },
    ]);
    expect(s.references).toEqual([
      { id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', slug: 'app', version: '3', attributes: new AttributeList([['key', 'application']]) },
      { attributes: new AttributeList() },
    ]);
  });

  it('links and events: absent stays absent, [] stays []', () => {
    const b = ingest({ spans: [OK, { ...OK, span_id: S2, links: [], events: [] }, { ...OK, span_id: 'c1b2c3d4e5f60718', links: null }] });
    expect(b.spans.map((s) => [s.links, s.events])).toEqual([[undefined, undefined], [[], []], [undefined, undefined]]);
    expect(b.spans[0].links).toBeUndefined();
  });

  it('per-event and per-link otlp sub-objects are carried when well-formed', () => {
    const b = ingest({ spans: [{ ...OK,
      events: [{ name: 'a', timestamp: 1776363498, otlp: { dropped_attributes_count: 2 } },
        { name: 'b', timestamp: 1776363498, otlp: { dropped_attributes_count: 'x' } }],
      links: [{ trace_id: T, span_id: S, otlp: { trace_state: 'k=v', flags: 257, dropped_attributes_count: 1 } },
        { trace_id: T, span_id: S, otlp: { trace_state: 'k=v', other: 1 } }],
    }] });
    const s = b.spans[0];
    expect(s.events?.[0].droppedAttributesCount).toBe(2);
    expect(s.events?.[1]).not.toHaveProperty('droppedAttributesCount');
    expect(s.links?.[0]).toMatchObject({ traceState: 'k=v', flags: 257, droppedAttributesCount: 1 });
    expect(s.links?.[1]).not.toHaveProperty('traceState');
  });
});

describe('§4.5 the canonical span', () => {
  it('every field maps as documented', () => {
    const b = ingest({ spans: [{
      trace_id: T, span_id: S, parent_id: '0x' + S2.toUpperCase(), span_name: 'chat', span_kind: 'SPAN_KIND_CLIENT',
      span_type: 'chat', trace_type: 'annotation', status_code: 'STATUS_CODE_ERROR', status_message: 'boom',
      start_time: '2026-04-16T18:18:18.123456789Z', end_time: '1776363499500000000',
      attributes: { ag: { data: { inputs: { q: 'hi' } } }, 'gen_ai.request.model': 'gpt-4o' },
      session_id: 'sess', user_id: 'u1', resource: { service: { name: 'shop' } },
      scope: { name: 'lib', version: '1.2.0', attributes: { a: { b: true } } },
      otlp: { trace_state: 'ts', flags: 1, dropped_attributes_count: 0, dropped_events_count: 2, dropped_links_count: 3,
        resource_schema_url: 'r', scope_schema_url: 's' },
    }] });
    expect(b.rejections).toEqual([]);
    expect([...b.spans[0].attributes.keys()]).toEqual(['ag.data.inputs.q', 'gen_ai.request.model']);
    expect(b.spans[0]).toEqual({
      traceId: T, spanId: S, parentId: S2, name: 'chat', kind: 3,
      startNs: 1776363498123456789n, endNs: 1776363499500000000n,
      status: { code: 2, message: 'boom' },
      attributes: new AttributeList([['ag.data.inputs.q', 'hi'], ['gen_ai.request.model', 'gpt-4o']]),
      sessionId: 'sess', userId: 'u1',
      resource: new AttributeList([['service.name', 'shop']]),
      scope: { name: 'lib', version: '1.2.0', attributes: new AttributeList([['a.b', true]]) },
      otlp: { traceState: 'ts', flags: 1, droppedAttributesCount: 0, droppedEventsCount: 2, droppedLinksCount: 3,
        resourceSchemaUrl: 'r', scopeSchemaUrl: 's' },
      spanType: 'chat', traceType: 'annotation',
    });
  });

  it('defaults: kind 0, status 0 without message, empty attributes, root', () => {
    const s = ingest({ spans: [OK] }).spans[0];
    expect(s.kind).toBe(0);
    expect(s.status).toEqual({ code: 0 });
    expect(s.attributes.size).toBe(0);
    expect(s.parentId).toBeUndefined();
    expect(s.spanType).toBeUndefined();
  });

  it('enum orders: every span_kind and status_code', () => {
    const kinds = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
    kinds.forEach((k, i) => expect(ingest({ spans: [{ ...OK, span_kind: k }] }).spans[0].kind).toBe(i));
    ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR']
      .forEach((c, i) => expect(ingest({ spans: [{ ...OK, status_code: c }] }).spans[0].status.code).toBe(i));
  });

  it('flat spans without span_name get a random 12-hex name', () => {
    const b = ingest({ spans: [OK, { ...OK, span_id: S2 }] });
    expect(b.spans[0].name).toMatch(/^[0-9a-f]{12}$/);
    expect(b.spans[1].name).toMatch(/^[0-9a-f]{12}$/);
    expect(b.spans[0].name).not.toBe(b.spans[1].name);
  });

  it('an all-zero parent_id means root', () => {
    expect(ingest({ spans: [{ ...OK, parent_id: '0000000000000000' }] }).spans[0].parentId).toBeUndefined();
  });

  it('exactly parsed JSON: 19-digit times stay exact, bigint attribute values pass through', () => {
    const text = `{"spans":[{"trace_id":"${T}","span_id":"${S}","start_time":1776363499123456789,`
      + `"end_time":1776363499123456799,"attributes":{"big":12345678901234567890,"n":{"small":5}}}]}`;
    const parsed = parseJsonBytes(Buffer.from(text), 64);
    const body = (parsed.ok ? parsed.value : undefined) as { spans: unknown[] };
    const s = ingest(body).spans[0];
    expect(s.startNs).toBe(1776363499123456789n);
    expect(s.endNs).toBe(1776363499123456799n);
    expect(s.attributes.get('big')).toBe(12345678901234567890n);
    expect(s.attributes.get('n.small')).toBe(5);
  });
});

describe('§5.3 de-duplication and order', () => {
  it('same normalised (trace_id, span_id): later data, first position; others keep submission order', () => {
    const b = ingest({ spans: [
      { ...OK, span_id: S2, span_name: 'x1' },
      { ...OK, span_name: 'y1' },
      { ...OK, span_id: S2.toUpperCase(), span_name: 'x2' },
      { ...OK, trace_id: T2, span_name: 'other-trace' },
      { ...OK, span_id: '0x' + S, span_name: 'y2' },
      { ...OK, span_name: 'bad', start_time: 'nope' },
    ] });
    expect(b.spans.map((s) => s.name)).toEqual(['x2', 'y2', 'other-trace']);
    expect(b.rejections.map((r) => r.index)).toEqual([5]);
  });

  it('links follow submission order (pre-order in trees), not grouped by trace', () => {
    const b = ingest({ spans: [
      { ...OK, trace_id: T2, span_id: 'c1b2c3d4e5f60718' },
      { ...OK, span_id: S2 },
      { ...OK, trace_id: T2, span_id: 'd1b2c3d4e5f60718' },
    ] });
    expect(b.spans.map((s) => s.spanId)).toEqual(['c1b2c3d4e5f60718', S2, 'd1b2c3d4e5f60718']);
  });

  it('empty bodies give empty results', () => {
    for (const b of [ingest({ spans: [] }), ingest({ traces: {} })]) {
      expect(b.spans).toEqual([]);
      expect(b.rejections).toEqual([]);
    }
  });
});
