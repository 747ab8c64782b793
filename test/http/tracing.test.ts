// ingest-api.md §3-§7 end to end: ids, timestamps, every reason, tree inheritance, duplicates, link order,
// all-rejected, and the single-trace rules, through the real flatten/validate/namespace processors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { flatSpan, post, startReceiver, TRACE_ID, type HttpResult, type Running } from './harness.ts';

let r: Running;
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(() => r.close());
beforeEach(() => {
  r.consumer.appended.length = 0;
});

const SPAN_ID = '00f067aa0ba902b7';
const ingest = (body: unknown) => post(r.port, '/tracing/spans/ingest', body);
const traces = (body: unknown) => post(r.port, '/tracing/traces/', body);
/** The reason of rejection `i`, without the free text after the colon (§5.1). */
const reasonOf = (res: HttpResult, i = 0) => {
  const list = res.status === 422 ? res.json.detail : res.json.rejected;
  return String(list[i].reason).split(':')[0];
};
const span = (extra: Record<string, unknown>) => ({
  trace_id: TRACE_ID, span_id: SPAN_ID, start_time: 1776363498, end_time: 1776363499, ...extra,
});

describe('ids (§4.3)', () => {
  const traceRows: Array<[string, unknown, string | undefined]> = [
    ['32 hex, uppercase', '4BF92F3577B34DA6A3CE929D0E0E4736', TRACE_ID],
    ['16 hex', '00F067AA0BA902B7', undefined],
    ['0x + 32 hex', '0x4bf92f3577b34da6a3ce929d0e0e4736', TRACE_ID],
    ['0x + 16 hex', '0x00f067aa0ba902b7', undefined],
    ['dashed', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', TRACE_ID],
    ['dashes anywhere', '4bf9-2f3577b34da6a3ce929d0e0e47-36', TRACE_ID],
    ['braced', '{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}', TRACE_ID],
    ['urn:uuid:', 'urn:uuid:4bf92f35-77b3-4da6-a3ce-929d0e0e4736', TRACE_ID],
    ['urn:uuid:{...}', 'urn:uuid:{4bf92f3577b34da6a3ce929d0e0e4736}', TRACE_ID],
    ['all zero', '00000000-0000-0000-0000-000000000000', undefined],
    ['other length', 'abc123abc123abc', undefined],
    ['non-hex', '4bf92f3577b34da6a3ce929d0e0e473g', undefined],
    ['0X prefix', '0X4bf92f3577b34da6a3ce929d0e0e4736', undefined],
    ['spaces', ' 4bf92f3577b34da6a3ce929d0e0e4736', undefined],
    ['a number', 1234, undefined],
    ['URN:UUID: in capitals', 'URN:UUID:4bf92f35-77b3-4da6-a3ce-929d0e0e4736', undefined],
  ];
  for (const [name, input, expected] of traceRows) {
    it(`trace_id ${name} -> ${expected ?? 'invalid'}`, async () => {
      const res = await ingest({ spans: [span({ trace_id: input })] });
      if (expected === undefined) {
        expect(res.status).toBe(422);
        expect(reasonOf(res)).toBe('invalid trace_id');
        if (typeof input === 'string') expect(res.json.detail[0].trace_id).toBe(input);
        else expect(res.json.detail[0]).not.toHaveProperty('trace_id');
      } else {
        expect(res.status).toBe(202);
        expect(res.json.links).toEqual([{ trace_id: expected, span_id: SPAN_ID }]);
      }
    });
  }

  const spanRows: Array<[string, unknown, string | undefined]> = [
    ['32 hex: the last 16', '4BF92F3577B34DA6A3CE929D0E0E4736', 'a3ce929d0e0e4736'],
    ['16 hex, uppercase', '00F067AA0BA902B7', SPAN_ID],
    ['0x + 32 hex', '0x4bf92f3577b34da6a3ce929d0e0e4736', undefined],
    ['0x + 16 hex', '0x00f067aa0ba902b7', SPAN_ID],
    ['dashed 32 hex', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', 'a3ce929d0e0e4736'],
    ['urn:uuid:{...}', 'urn:uuid:{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}', 'a3ce929d0e0e4736'],
    ['all zero', '0000000000000000', undefined],
    ['15 hex', 'abc123abc123abc', undefined],
    ['non-hex 16', '00f067aa0ba902bz', undefined],
    ['0X prefix', '0X00f067aa0ba902b7', undefined],
    ['a number', 12, undefined],
  ];
  for (const [name, input, expected] of spanRows) {
    it(`span_id ${name} -> ${expected ?? 'invalid'}`, async () => {
      const res = await ingest({ spans: [span({ span_id: input })] });
      if (expected === undefined) {
        expect(res.status).toBe(422);
        expect(reasonOf(res)).toBe('invalid span_id');
      } else {
        expect(res.status).toBe(202);
        expect(res.json.links).toEqual([{ trace_id: TRACE_ID, span_id: expected }]);
      }
    });
  }

  it('parent_id: normalised like a span id; all zero means no parent; other forms rejected', async () => {
    const res = await ingest({ spans: [
      span({ span_id: '1000000000000001', parent_id: '0X00F067AA0BA902B7' }),
      span({ span_id: '1000000000000002', parent_id: '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736' }),
      span({ span_id: '1000000000000003', parent_id: '0000000000000000' }),
      span({ span_id: '1000000000000004', parent_id: 'nope' }),
    ] });
    expect(res.status).toBe(202);
    expect(res.json.rejected.map((x: { index: number }) => x.index)).toEqual([0, 3]);
    expect(reasonOf(res, 0)).toBe('invalid parent_id');
    const spans = r.consumer.spans();
    expect(spans.map((s) => s.parentId)).toEqual(['a3ce929d0e0e4736', undefined]);
  });
});

describe('timestamps (§4.4)', () => {
  const rows: Array<[unknown, bigint | undefined]> = [
    ['2026-04-16T20:18:18+02:00', 1776363498000000000n],
    ['2026-04-16 18:18:18.123456789123', 1776363498123456789n],
    ['2026-04-16t18:18:18,5z', 1776363498500000000n],
    ['2026-04-16T18:18Z', 1776363480000000000n],
    ['2026-04-16T18:18:18', 1776363498000000000n],
    ['2026-04-16T19:18:18+0100', 1776363498000000000n],
    ['2026-04-16T17:18:18-01', 1776363498000000000n],
    ['2026-04-16', 1776297600000000000n],
    [1670000000, 1670000000000000000n],
    ['1670000000', 1670000000000000000n],
    [1776363499123, 1776363499123000000n],
    ['1776363499123', 1776363499123000000n],
    [1776363499123456, 1776363499123456000n],
    ['1776363499123456789', 1776363499123456789n],
    ['0001776363499', 1776363499000000000n],
    [1.7e9, 1700000000000000000n],
    [123456, undefined],
    [1700000000.5, undefined],
    [-1670000000, undefined],
    ['yesterday', undefined],
    ['2026-02-30T00:00:00Z', undefined],
    ['2026-04-16T24:00:00Z', undefined],
    ['2026-04-16T23:59:60Z', undefined],
    ['20260416T181818Z', undefined],
    [true, undefined],
    [{ seconds: 1 }, undefined],
  ];
  for (const [input, expected] of rows) {
    it(`${JSON.stringify(input)} -> ${expected ?? 'rejected'}`, async () => {
      const res = await ingest({ spans: [span({ start_time: input, end_time: input })] });
      if (expected === undefined) {
        expect(res.status).toBe(422);
        expect(reasonOf(res)).toBe('invalid start_time');
      } else {
        expect(res.status).toBe(202);
        expect(r.consumer.spans()[0].startNs).toBe(expected);
        expect(r.consumer.spans()[0].endNs).toBe(expected);
      }
    });
  }

  it('keeps 19-digit JSON integers exact (the exact parse path), also in exponent form', async () => {
    // Raw JSON text: a JS number literal would already be rounded.
    const body = JSON.stringify({ spans: [span({ start_time: 'S', end_time: 'E' }), span({ span_id: '1000000000000009' })] })
      .replace('"S"', '1776363499123456789').replace('"E"', '17763634991234567890e-1');
    const res = await ingest(body);
    expect(res.status).toBe(202);
    expect(r.consumer.spans()[0].startNs).toBe(1776363499123456789n);
    expect(r.consumer.spans()[0].endNs).toBe(1776363499123456789n);
  });

  it('end before start is accepted', async () => {
    const res = await ingest({ spans: [span({ start_time: 1776363499, end_time: 1776363498 })] });
    expect(res.status).toBe(202);
  });
});

describe('every reason of §4.1 and §4.2', () => {
  const rows: Array<[string, Record<string, unknown>]> = [
    ['missing trace_id', { trace_id: null }],
    ['invalid trace_id', { trace_id: 'x' }],
    ['missing span_id', { span_id: undefined }],
    ['invalid span_id', { span_id: 'x' }],
    ['invalid parent_id', { parent_id: 5 }],
    ['missing start_time', { start_time: undefined }],
    ['invalid start_time', { start_time: 'x' }],
    ['missing end_time', { end_time: null }],
    ['invalid end_time', { end_time: 123 }],
    ['invalid span_name', { span_name: 5 }],
    ['invalid span_kind', { span_kind: 'SERVER' }],
    ['invalid span_type', { span_type: 'nope' }],
    ['invalid trace_type', { trace_type: 'nope' }],
    ['invalid status_code', { status_code: 'OK' }],
    ['invalid status_message', { status_message: 1 }],
    ['invalid attributes', { attributes: [] }],
    ['invalid events', { events: {} }],
    ['invalid events[0]', { events: [1] }],
    ['missing events[0].name', { events: [{ timestamp: 1776363498 }] }],
    ['invalid events[0].name', { events: [{ name: 1, timestamp: 1776363498 }] }],
    ['missing events[1].timestamp', { events: [{ name: 'a', timestamp: 1776363498 }, { name: 'b' }] }],
    ['invalid events[0].timestamp', { events: [{ name: 'a', timestamp: 'x' }] }],
    ['invalid events[0].attributes', { events: [{ name: 'a', timestamp: 1776363498, attributes: 'x' }] }],
    ['invalid links', { links: {} }],
    ['invalid links[0]', { links: ['x'] }],
    ['missing links[0].trace_id', { links: [{ span_id: SPAN_ID }] }],
    ['invalid links[0].trace_id', { links: [{ trace_id: 'x', span_id: SPAN_ID }] }],
    ['missing links[0].span_id', { links: [{ trace_id: TRACE_ID }] }],
    ['invalid links[0].span_id', { links: [{ trace_id: TRACE_ID, span_id: 'x' }] }],
    ['invalid links[0].attributes', { links: [{ trace_id: TRACE_ID, span_id: SPAN_ID, attributes: 1 }] }],
    ['invalid references', { references: 'x' }],
    ['invalid references[0]', { references: [1] }],
    ['invalid references[0].id', { references: [{ id: 'not-a-uuid' }] }],
    ['invalid references[0].slug', { references: [{ slug: 1 }] }],
    ['invalid references[0].version', { references: [{ version: {} }] }],
    ['invalid references[0].attributes', { references: [{ slug: 's', attributes: [] }] }],
    ['invalid session_id', { session_id: 5 }],
    ['invalid user_id', { user_id: [] }],
    ['invalid resource', { resource: 'x' }],
    ['invalid scope', { scope: { version: '1' } }],
  ];
  for (const [reason, extra] of rows) {
    it(reason, async () => {
      const res = await ingest({ spans: [span(extra)] });
      expect(res.status).toBe(422);
      expect(reasonOf(res)).toBe(reason);
      expect(res.json.detail[0]).toMatchObject({ index: 0, path: 'spans[0]' });
    });
  }

  it('invalid span: expected an object, with no ids shown', async () => {
    const res = await ingest({ spans: ['not a span'] });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([{ index: 0, path: 'spans[0]', reason: 'invalid span: expected an object' }]);
  });

  it('only the first failing field is reported, ids as sent', async () => {
    const res = await ingest({ spans: [span({ span_id: 'ABC', start_time: 'x' })] });
    expect(res.json.detail).toHaveLength(1);
    expect(res.json.detail[0]).toMatchObject({ trace_id: TRACE_ID, span_id: 'ABC' });
    expect(reasonOf(res)).toBe('invalid span_id');
  });

  it('links and references without attributes are accepted with {} (links [] kept)', async () => {
    const res = await ingest({ spans: [span({ links: [{ trace_id: TRACE_ID, span_id: SPAN_ID }], references: [{ slug: 'x' }] })] });
    expect(res.status).toBe(202);
    expect(r.consumer.spans()[0].links?.[0].attributes.size).toBe(0);
  });
});

describe('tree form (§3.3)', () => {
  it('the spec example: inheritance, pre-order, a top-level list', async () => {
    const body = { traces: { [TRACE_ID]: { spans: {
      agent: { span_id: '00f067aa0ba902b7', start_time: '2026-04-16T18:18:18Z', end_time: '2026-04-16T18:18:20Z',
        spans: { lookup: { span_id: 'a1b2c3d4e5f60718', start_time: '2026-04-16T18:18:18.5Z', end_time: '2026-04-16T18:18:19Z' } } },
      retry: [{ span_id: 'b1b2c3d4e5f60718', start_time: 1776363500, end_time: 1776363501 },
        { span_id: 'c1b2c3d4e5f60718', start_time: 1776363502, end_time: 1776363503 }],
    } } } };
    const res = await ingest(body);
    expect(res.status).toBe(202);
    expect(res.json.links.map((l: { span_id: string }) => l.span_id)).toEqual(
      ['00f067aa0ba902b7', 'a1b2c3d4e5f60718', 'b1b2c3d4e5f60718', 'c1b2c3d4e5f60718']);
    const spans = r.consumer.spans();
    expect(spans.map((s) => [s.name, s.traceId, s.parentId])).toEqual([
      ['agent', TRACE_ID, undefined], ['lookup', TRACE_ID, '00f067aa0ba902b7'],
      ['retry', TRACE_ID, undefined], ['retry', TRACE_ID, undefined],
    ]);
    // The same body on /tracing/traces/ has two roots... three, in fact.
    const one = await traces(body);
    expect(one.status).toBe(400);
    expect(one.json.detail).toBe('Too many root spans');
  });

  it('a top-level node under an invalid trace key: missing trace_id; its child: cannot inherit trace_id', async () => {
    const res = await ingest({ traces: { 'not-an-id': { spans: { root: {
      span_id: SPAN_ID, start_time: 1776363498, end_time: 1776363499,
      spans: { child: { span_id: 'a1b2c3d4e5f60718', start_time: 1776363498, end_time: 1776363499 } },
    } } } } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { reason: string; path: string }) => [d.path, d.reason.split(':')[0]])).toEqual([
      ['traces.not-an-id.spans.root', 'missing trace_id'],
      ['traces.not-an-id.spans.root.spans.child', 'cannot inherit trace_id'],
    ]);
  });

  it('cannot inherit parent_id when the parent span_id is invalid; the parent is rejected on its own', async () => {
    const res = await ingest({ traces: { [TRACE_ID]: { spans: { root: {
      span_id: 'bad', start_time: 1776363498, end_time: 1776363499,
      spans: { child: [{ span_id: 'a1b2c3d4e5f60718', start_time: 1776363498, end_time: 1776363499 },
        { span_id: 'a1b2c3d4e5f60719', parent_id: SPAN_ID, start_time: 1776363498, end_time: 1776363499 }] },
    } } } } });
    expect(res.status).toBe(202);
    expect(res.json.rejected.map((d: { reason: string; path: string }) => [d.path, d.reason.split(':')[0]])).toEqual([
      [`traces.${TRACE_ID}.spans.root`, 'invalid span_id'],
      [`traces.${TRACE_ID}.spans.root.spans.child[0]`, 'cannot inherit parent_id'],
    ]);
    expect(res.json.links).toEqual([{ trace_id: TRACE_ID, span_id: 'a1b2c3d4e5f60719' }]);
  });

  it('non-object nodes and a bad children map are rejected; explicit values win over inherited ones', async () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const res = await ingest({ traces: { [TRACE_ID]: { spans: {
      n: 5,
      list: ['x', { span_id: SPAN_ID, trace_id: other, span_name: 'named', start_time: 1776363498, end_time: 1776363499, spans: [] }],
    } } } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { reason: string }) => d.reason.split(':')[0])).toEqual([
      'invalid span', 'invalid span', 'invalid spans',
    ]);
    const ok = await ingest({ traces: { [TRACE_ID]: { spans: { list: [
      { span_id: SPAN_ID, trace_id: other, span_name: 'named', start_time: 1776363498, end_time: 1776363499 }] } } } });
    expect(ok.json.links).toEqual([{ trace_id: other, span_id: SPAN_ID }]);
    expect(r.consumer.spans().at(-1)?.name).toBe('named');
  });
});

describe('duplicates, link order, all rejected (§5)', () => {
  it('the §5.4 mixed request', async () => {
    const res = await ingest({ spans: [
      { trace_id: '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736', span_id: '00F067AA0BA902B7', span_name: 'root',
        start_time: 1776363498, end_time: '2026-04-16T18:18:20.5Z', attributes: { ag: { type: { span: 'workflow' } } } },
      { trace_id: TRACE_ID, span_id: 'a1b2c3d4e5f60718', span_kind: 'SERVER', start_time: 1776363498, end_time: 1776363499 },
      'not a span',
      { trace_id: TRACE_ID, span_id: SPAN_ID, span_name: 'root-again', start_time: 1776363498, end_time: 1776363499 },
    ] });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({
      count: 1,
      links: [{ trace_id: TRACE_ID, span_id: SPAN_ID }],
      rejected: [
        { index: 1, path: 'spans[1]', trace_id: TRACE_ID, span_id: 'a1b2c3d4e5f60718', reason: 'invalid span_kind' },
        { index: 2, path: 'spans[2]', reason: 'invalid span: expected an object' },
      ],
    });
    expect(r.consumer.spans().map((s) => s.name)).toEqual(['root-again']);
  });

  it('links are in submission order; duplicates keep the first position and the later data', async () => {
    const res = await ingest({ spans: [flatSpan(3), flatSpan(1), flatSpan(2), flatSpan(1, { span_name: 'later' }), flatSpan(0)] });
    expect(res.json.count).toBe(4);
    expect(res.json.links.map((l: { span_id: string }) => l.span_id)).toEqual(
      [flatSpan(3), flatSpan(1), flatSpan(2), flatSpan(0)].map((s) => s.span_id));
    expect(r.consumer.spans().map((s) => s.name)).toEqual(['span-3', 'later', 'span-2', 'span-0']);
    expect(res.json).not.toHaveProperty('rejected');
  });

  it('every span rejected: 422 with the rejection list, nothing appended', async () => {
    const res = await ingest({ spans: [span({ span_id: 1 }), 'x'] });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    expect(r.consumer.appended).toHaveLength(0);
  });
});

describe('POST /tracing/traces/ (§7)', () => {
  const root = (extra: Record<string, unknown> = {}) => span({ span_id: '1000000000000001', ...extra });
  const child = (extra: Record<string, unknown> = {}) =>
    span({ span_id: '1000000000000002', parent_id: '1000000000000001', ...extra });

  const rows: Array<[string, unknown, string]> = [
    ['more than one trace key', { traces: { [TRACE_ID]: { spans: {} }, other: { spans: {} } } }, 'Too many traces'],
    ['spans: []', { spans: [] }, 'Missing spans'],
    ['traces: {}', { traces: {} }, 'Missing spans'],
    ['the one entry has no spans', { traces: { [TRACE_ID]: { spans: {} } } }, 'Missing spans'],
    ['the one entry has no spans key', { traces: { [TRACE_ID]: {} } }, 'Missing spans'],
    ['two trace ids', { spans: [root(), child({ trace_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }), child({ span_id: '1000000000000003', trace_id: 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' })] },
      `Spans must share one trace_id; found 3: ${TRACE_ID}, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb`],
    ['no root', { spans: [child()] }, 'Missing root span'],
    ['two roots', { spans: [root(), root({ span_id: '1000000000000005' })] }, 'Too many root spans'],
  ];
  for (const [name, body, detail] of rows) {
    it(`${name} -> 400 ${detail}`, async () => {
      const res = await traces(body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail });
      expect(r.consumer.appended).toHaveLength(0);
    });
  }

  it('a 400 lists rejected spans when any', async () => {
    const res = await traces({ spans: [child(), 'x'] });
    expect(res.status).toBe(400);
    expect(res.json.detail).toBe('Missing root span');
    expect(res.json.rejected).toEqual([{ index: 1, path: 'spans[1]', reason: 'invalid span: expected an object' }]);
  });

  it('a root that is duplicated counts once; a zero parent_id is a root', async () => {
    const res = await traces({ spans: [root(), child(), root({ parent_id: '0000000000000000', span_name: 'again' })] });
    expect(res.status).toBe(202);
    expect(res.json.count).toBe(2);
  });

  it('every span rejected: 422 (check 3), before checks 4-6', async () => {
    const res = await traces({ spans: ['x'] });
    expect(res.status).toBe(422);
  });

  it('one trace, one root: 202 with the links', async () => {
    const res = await traces({ traces: { [TRACE_ID]: { spans: { root: {
      span_id: SPAN_ID, start_time: 1776363498, end_time: 1776363499,
      spans: { child: { span_id: 'a1b2c3d4e5f60718', start_time: 1776363498, end_time: 1776363499 } } } } } } });
    expect(res.status).toBe(202);
    expect(res.json.links).toEqual([
      { trace_id: TRACE_ID, span_id: SPAN_ID }, { trace_id: TRACE_ID, span_id: 'a1b2c3d4e5f60718' }]);
    expect(r.consumer.appended).toHaveLength(1);
  });
});
