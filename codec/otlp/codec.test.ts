import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';
import {
  decodeExportRequestJson, decodeExportResponse, decodeExportResponseJson, decodeStatus, ExportRequestEncoder,
  encodeExportRequestJson, encodeExportResponse, encodeExportResponseJson, encodeStatus, exportRequestJson, OtlpDecodeError,
} from './index.ts';
import { decodeExportRequest } from '../../test/helpers/otlp-decode.ts';
import { ProtoWriter } from './proto-writer.ts';
import { OtlpRules } from './rules.ts';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';
import { withAllFields } from '../../test/helpers/spans.ts';

const requestEncoder = new ExportRequestEncoder();

const enc = new TextEncoder();

function attrs(entries: Array<[string, AttrValue]>): Attributes {
  return new AttributeList(entries);
}

const resource = attrs([['service.name', 'shop'], ['host.cores', 2]]);
const scope = { name: 'openai-instrumentation', version: '1.2.0', attributes: attrs([['lib.flag', true]]) };

/** A span touching every field and every value shape the codec carries. */
function fullSpan(): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    parentId: 'a1b2c3d4e5f60718',
    name: 'chat ✨ 日本',
    kind: 3,
    startNs: 1776363498123456789n,
    endNs: 1776363499500000000n,
    status: { code: 2, message: 'boom' },
    attributes: attrs([
      ['str', 'héllo 🙂'],
      ['empty.str', ''],
      ['t', true],
      ['f', false],
      ['zero', 0],
      ['neg', -42],
      ['dbl', 1.25],
      ['neg.dbl', -0.5],
      ['max.safe', Number.MAX_SAFE_INTEGER],
      ['min.safe', Number.MIN_SAFE_INTEGER],
      ['int64.max', 2n ** 63n - 1n],
      ['int64.min', -(2n ** 63n)],
      ['beyond.safe', 2n ** 53n + 1n],
      ['nan', 'NaN'],
      ['nul', null],
      ['arr', ['a', 1, true, null, 2.5, 2n ** 60n]],
      ['arr.empty', []],
      ['ünïcode.kéy', 'v'],
    ]),
    events: [
      { name: 'exception', timeNs: 1776363499000000001n, attributes: attrs([['exception.message', 'x']]), droppedAttributesCount: 2 },
      { name: 'e2', timeNs: 1776363499000000002n, attributes: new AttributeList() },
    ],
    links: [
      { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', attributes: attrs([['l', 1]]), traceState: 'k=v', flags: 1, droppedAttributesCount: 3 },
    ],
    resource,
    scope,
    otlp: {
      traceState: 'congo=t61rcWkgMzE', flags: 257, droppedAttributesCount: 1, droppedEventsCount: 2, droppedLinksCount: 3,
      resourceSchemaUrl: 'https://opentelemetry.io/schemas/1.26.0', scopeSchemaUrl: 'https://opentelemetry.io/schemas/1.27.0',
    },
  };
}

function minimalSpan(i: number, res?: Attributes, sc?: Span['scope']): Span {
  const hex = i.toString(16).padStart(16, '0');
  const span: Span = {
    traceId: '0123456789abcdef' + hex, spanId: hex, name: `s${i}`, kind: 1, startNs: 1n, endNs: 2n,
    status: { code: 0 }, attributes: new AttributeList(),
  };
  if (res) span.resource = res;
  if (sc) span.scope = sc;
  return span;
}

describe('protobuf round trip', () => {
  it('every field and value shape comes back identical', () => {
    const span = fullSpan();
    const { spans } = decodeExportRequest(requestEncoder.encode([span]));
    expect(spans).toStrictEqual([withAllFields(span)]);
  });

  it('one encoder over many calls: ids, keys and attributes it remembers from earlier spans never leak into later ones', () => {
    const encoder = new ExportRequestEncoder();
    // '' first: a fresh encoder's remembered id starts as '' and must not be copied for it.
    const traces = ['', '4bf92f3577b34da6a3ce929d0e0e4736', '0af7651916cd43dd8448eb211c80319c', 'abcd'];
    const parents = ['a1b2c3d4e5f60718', undefined, 'b7ad6b7169203331', '0102'];
    const keySets: Array<Array<[string, AttrValue]>> = [
      [['a', 1], ['b', 'x'], ['c', true]],
      [['b', 'y'], ['a', 2]],
      [['c', false], ['d', 'z'], ['a', 3], ['b', 'w']],
    ];
    for (let call = 0; call < 3; call++) {
      // Runs of a trace and of a parent, and changes in between, in an order that differs per call.
      const input: Span[] = Array.from({ length: 12 }, (_, i) => ({
        ...minimalSpan(call * 100 + i + 1, resource, scope),
        traceId: traces[Math.floor((i + call) / 2) % traces.length],
        parentId: parents[(i + call) % parents.length],
        // Sets that repeat a few spans in a row, then change; values that change every second span.
        attributes: attrs([...keySets[Math.floor((i * (call + 1)) / 3) % keySets.length], ['v', Math.floor(i / 2)], ['s', i % 4 < 2 ? 'same' : 'other'], ['n', null]]),
        events: [{ name: 'e', timeNs: 5n, attributes: attrs(keySets[(i + call) % keySets.length]) }],
      }));
      const { spans } = decodeExportRequest(encoder.encode(input));
      expect(spans).toStrictEqual(input.map(withAllFields));
    }
  });

  it('ids keep the bytes that came, even when their length is wrong (validate judges)', () => {
    const span = { ...minimalSpan(1), traceId: 'abcd', spanId: '00000000000000000000' };
    const { spans } = decodeExportRequest(requestEncoder.encode([span]));
    expect(spans[0].traceId).toBe('abcd');
    expect(spans[0].spanId).toBe('00000000000000000000');
  });

  it('a double with an integral value comes back as an int (the documented loss)', () => {
    const span = minimalSpan(1);
    span.attributes.set('d', 2.0);
    const { spans } = decodeExportRequest(requestEncoder.encode([span]));
    expect(spans[0].attributes.get('d')).toBe(2);
  });

  it('groups spans by resource and scope, first appearance first', () => {
    const r2 = attrs([['service.name', 'other']]);
    const s2 = { name: 'lib2' };
    const spans = [
      minimalSpan(1, resource, scope),
      minimalSpan(2, r2, s2),
      // equal content, different objects: same group
      minimalSpan(3, attrs([['service.name', 'shop'], ['host.cores', 2]]), { name: scope.name, version: scope.version, attributes: attrs([['lib.flag', true]]) }),
      minimalSpan(4, resource, s2),
      minimalSpan(5),
    ];
    const json = exportRequestJson(spans) as { resourceSpans: Array<{ resource?: unknown; scopeSpans: Array<{ scope?: { name: string }; spans: Array<{ name: string }> }> }> };
    const shape = json.resourceSpans.map((rs) => rs.scopeSpans.map((ss) => [ss.scope?.name, ss.spans.map((s) => s.name)]));
    expect(shape).toEqual([
      [['openai-instrumentation', ['s1', 's3']], ['lib2', ['s4']]],
      [['lib2', ['s2']]],
      [[undefined, ['s5']]],
    ]);
    // and the protobuf form carries the same grouping: decoding gives spans in group order
    const decoded = decodeExportRequest(requestEncoder.encode(spans)).spans.map((s) => s.name);
    expect(decoded).toEqual(['s1', 's3', 's4', 's2', 's5']);
  });

  it('writes span type, trace type, references, session and user as ag.* attributes when absent', () => {
    const span = minimalSpan(1);
    span.attributes.set('ag.type.span', 'chat'); // already present: kept, not duplicated
    span.spanType = 'llm';
    span.traceType = 'invocation';
    span.sessionId = 'sess-1';
    span.userId = 'user-1';
    span.references = [
      { id: '0195c2b6-0000-7000-8000-000000000001', slug: 'app', attributes: attrs([['key', 'application']]) },
      { version: '3', attributes: new AttributeList() },
    ];
    const out = decodeExportRequest(requestEncoder.encode([span])).spans[0].attributes;
    expect([...out]).toEqual([
      ['ag.type.span', 'chat'],
      ['ag.type.trace', 'invocation'],
      ['ag.references.application.id', '0195c2b6-0000-7000-8000-000000000001'],
      ['ag.references.application.slug', 'app'],
      ['ag.references.1.version', '3'],
      ['ag.session.id', 'sess-1'],
      ['ag.user.id', 'user-1'],
    ]);
  });

  it('skips unknown fields inserted at every level of the request', () => {
    const w = new ProtoWriter(256);
    const unknown = () => {
      w.tag(99, WIRE_VARINT); w.varint(12345);
      w.tag(100, WIRE_LEN); w.string('unknown');
      w.tag(101, WIRE_FIXED64); w.fixed64(1n);
      w.tag(102, WIRE_FIXED32); w.fixed32(1);
    };
    unknown();
    w.tag(1, WIRE_LEN); const rs = w.begin(); unknown();
    w.tag(1, WIRE_LEN); const res = w.begin(); unknown();
    w.tag(1, WIRE_LEN); const kv = w.begin(); unknown();
    w.tag(1, WIRE_LEN); w.string('service.name');
    w.tag(2, WIRE_LEN); const av = w.begin(); unknown(); w.tag(1, WIRE_LEN); w.string('shop'); w.end(av);
    w.end(kv); w.end(res);
    w.tag(2, WIRE_LEN); const ss = w.begin(); unknown();
    w.tag(2, WIRE_LEN); const sp = w.begin(); unknown();
    w.tag(1, WIRE_LEN); w.hexBytes('4bf92f3577b34da6a3ce929d0e0e4736');
    w.tag(2, WIRE_LEN); w.hexBytes('00f067aa0ba902b7');
    w.tag(5, WIRE_LEN); w.string('n');
    w.tag(7, WIRE_FIXED64); w.fixed64(5n);
    w.tag(8, WIRE_FIXED64); w.fixed64(6n);
    w.tag(15, WIRE_LEN); const st = w.begin(); unknown(); w.tag(3, WIRE_VARINT); w.varint(1); w.end(st);
    w.end(sp); w.end(ss); unknown(); w.end(rs);
    const { spans } = decodeExportRequest(w.finish());
    expect(spans).toStrictEqual([withAllFields({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'n', kind: 0,
      startNs: 5n, endNs: 6n, status: { code: 1 }, attributes: new AttributeList(), resource: attrs([['service.name', 'shop']]),
    })]);
  });

  it('kvlists are flattened into dotted keys; arrays holding kvlists are expanded by index', () => {
    const w = new ProtoWriter(256);
    const kvStart = (key: string) => { w.tag(9, WIRE_LEN); const m = w.begin(); w.tag(1, WIRE_LEN); w.string(key); return m; };
    const str = (s: string) => { w.tag(1, WIRE_LEN); w.string(s); };
    const innerKv = (key: string, body: () => void) => {
      w.tag(1, WIRE_LEN); const m = w.begin(); w.tag(1, WIRE_LEN); w.string(key);
      w.tag(2, WIRE_LEN); const v = w.begin(); body(); w.end(v); w.end(m);
    };
    w.tag(1, WIRE_LEN); const rs = w.begin();
    w.tag(2, WIRE_LEN); const ss = w.begin();
    w.tag(2, WIRE_LEN); const sp = w.begin();
    // attribute "obj": kvlist {a: "x", b: kvlist {c: 1}, "": "e", empty: kvlist {}}
    let m = kvStart('obj');
    w.tag(2, WIRE_LEN); let v = w.begin();
    w.tag(6, WIRE_LEN); let l = w.begin();
    innerKv('a', () => str('x'));
    innerKv('b', () => { w.tag(6, WIRE_LEN); const l2 = w.begin(); innerKv('c', () => { w.tag(3, WIRE_VARINT); w.int64(1); }); w.end(l2); });
    innerKv('', () => str('e'));
    innerKv('empty', () => { w.tag(6, WIRE_LEN); const l2 = w.begin(); w.end(l2); });
    w.end(l); w.end(v); w.end(m);
    // attribute "list": array [kvlist {k: "v"}, "s", kvlist {}, empty AnyValue]
    m = kvStart('list');
    w.tag(2, WIRE_LEN); v = w.begin();
    w.tag(5, WIRE_LEN); l = w.begin();
    w.tag(1, WIRE_LEN); let e = w.begin(); w.tag(6, WIRE_LEN); let l2 = w.begin(); innerKv('k', () => str('v')); w.end(l2); w.end(e);
    w.tag(1, WIRE_LEN); e = w.begin(); str('s'); w.end(e);
    w.tag(1, WIRE_LEN); e = w.begin(); w.tag(6, WIRE_LEN); l2 = w.begin(); w.end(l2); w.end(e);
    w.tag(1, WIRE_LEN); e = w.begin(); w.end(e);
    w.end(l); w.end(v); w.end(m);
    // attribute "bytes": bytes 0x00 0xff 0x10
    m = kvStart('bytes');
    w.tag(2, WIRE_LEN); v = w.begin(); w.tag(7, WIRE_LEN); w.hexBytes('00ff10'); w.end(v); w.end(m);
    // attribute "inf": double +Infinity
    m = kvStart('inf');
    w.tag(2, WIRE_LEN); v = w.begin(); w.tag(4, WIRE_FIXED64); w.double(Infinity); w.end(v); w.end(m);
    w.end(sp); w.end(ss); w.end(rs);
    const span = decodeExportRequest(w.finish()).spans[0];
    expect([...span.attributes]).toEqual([
      ['obj.a', 'x'], ['obj.b.c', 1], ['obj.', 'e'],
      ['list.0.k', 'v'], ['list.1', 's'], ['list.2', null], ['list.3', null],
      ['bytes', 'AP8Q'],
      ['inf', 'Infinity'],
    ]);
  });

  it('refuses values nested deeper than the limit, without overflowing the stack', () => {
    // 1,000 nested arrays around a string (the limit is 64)
    let inner = new ProtoWriter(16);
    inner.tag(1, WIRE_LEN); inner.string('x');
    let bytes = inner.finish();
    for (let i = 0; i < 1_000; i++) {
      const w = new ProtoWriter(bytes.length + 16);
      w.tag(5, WIRE_LEN); const a = w.begin(); w.tag(1, WIRE_LEN); w.varint(bytes.length);
      w.buf.set(bytes, w.pos); w.pos += bytes.length; w.end(a);
      bytes = w.finish();
      inner = w;
    }
    const w = new ProtoWriter(bytes.length + 64);
    w.tag(1, WIRE_LEN); const rs = w.begin(); w.tag(2, WIRE_LEN); const ss = w.begin(); w.tag(2, WIRE_LEN); const sp = w.begin();
    w.tag(9, WIRE_LEN); const kv = w.begin(); w.tag(1, WIRE_LEN); w.string('deep'); w.tag(2, WIRE_LEN); w.varint(bytes.length);
    w.buf.set(bytes, w.pos); w.pos += bytes.length;
    w.end(kv); w.end(sp); w.end(ss); w.end(rs);
    expect(() => decodeExportRequest(w.finish())).toThrow(/nested deeper/);
  });

  it('an empty body is an empty request', () => {
    expect(decodeExportRequest(new Uint8Array(0)).spans).toEqual([]);
  });
});

describe('OTLP/JSON', () => {
  it('round trip keeps every field (int64 exact, enums as integers)', () => {
    const span = fullSpan();
    const text = encodeExportRequestJson([span]);
    expect(decodeExportRequestJson(enc.encode(text)).spans).toStrictEqual([withAllFields(span)]);
  });

  it('writes hex ids, integer enums, int64 as decimal strings and lowerCamelCase keys', () => {
    const json = exportRequestJson([fullSpan()]) as any;
    const s = json.resourceSpans[0].scopeSpans[0].spans[0];
    expect(s.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(s.parentSpanId).toBe('a1b2c3d4e5f60718');
    expect(s.kind).toBe(3);
    expect(s.status).toEqual({ code: 2, message: 'boom' });
    expect(s.startTimeUnixNano).toBe('1776363498123456789');
    expect(s.droppedEventsCount).toBe(2);
    const byKey = Object.fromEntries(s.attributes.map((kv: any) => [kv.key, kv.value]));
    expect(byKey['int64.min']).toEqual({ intValue: '-9223372036854775808' });
    expect(byKey.neg).toEqual({ intValue: '-42' });
    expect(byKey.dbl).toEqual({ doubleValue: 1.25 });
    expect(byKey.nul).toEqual({});
    expect(json.resourceSpans[0].schemaUrl).toBe('https://opentelemetry.io/schemas/1.26.0');
  });

  it('accepts int64 as numbers or strings, enum names, snake_case names; ignores unknown keys', () => {
    const body = {
      resource_spans: [{
        unknownKey: { deep: [1, 2] },
        scopeSpans: [{
          spans: [{
            trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736', spanId: '00f067aa0ba902b7', name: 'n',
            kind: 'SPAN_KIND_SERVER', startTimeUnixNano: 1776363498123456789, end_time_unix_nano: '1776363498123456790',
            status: { code: 'STATUS_CODE_ERROR' }, mystery: true,
            attributes: [
              { key: 'i', value: { intValue: 9007199254740993 } },
              { key: 's', value: { intValue: '-5' } },
              { key: 'd', value: { doubleValue: 'NaN' } },
              { key: 'b', value: { bytesValue: 'AP8Q' } },
              { key: 'kv', value: { kvlistValue: { values: [{ key: 'x', value: { boolValue: true } }] } } },
            ],
          }],
        }],
      }],
    };
    // The literal 1776363498123456789 must reach the decoder exactly: build the text by hand.
    const text = JSON.stringify(body)
      .replace('"startTimeUnixNano":1776363498123456800', '"startTimeUnixNano":1776363498123456789')
      .replace('"intValue":9007199254740992', '"intValue":9007199254740993');
    const span = decodeExportRequestJson(enc.encode(text)).spans[0];
    expect(span.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span.kind).toBe(2);
    expect(span.status.code).toBe(2);
    expect(span.startNs).toBe(1776363498123456789n);
    expect(span.endNs).toBe(1776363498123456790n);
    expect([...span.attributes]).toEqual([['i', 9007199254740993n], ['s', -5], ['d', 'NaN'], ['b', 'AP8Q'], ['kv.x', true]]);
  });

  it('wrong types that validate has a rule for reject the span, not the request', () => {
    const text = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 5, spanId: '00f067aa0ba902b7', kind: 'nope', startTimeUnixNano: 'x' }] }] }] });
    const span = decodeExportRequestJson(enc.encode(text)).spans[0];
    expect(span.traceId).not.toMatch(/^[0-9a-f]{32}$/);
    expect(span.kind).toBe(-1);
    expect(span.startNs).toBe(0n);
  });

  it('a time that fixed64 cannot carry (2^64 and above) is no time: the rules reject the span as missing it', () => {
    const times = ['18446744073709551615', '18446744073709551616', '99999999999999999999', 1e20];
    const text = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: times.map((t) => ({ traceId: '5b8efff798038103d269b633813fc60c', spanId: '00f067aa0ba902b7', startTimeUnixNano: t })) }] }] });
    const spans = decodeExportRequestJson(enc.encode(text)).spans;
    expect(spans.map((s) => s.startNs)).toEqual([18446744073709551615n, 0n, 0n, 0n]);
    const rules = new OtlpRules();
    expect(spans.slice(1).map((s) => rules.problem(s))).toEqual(['missing start_time', 'missing start_time', 'missing start_time']);
  });

  it('undecodable bodies throw OtlpDecodeError naming the place', () => {
    const bad = ['', 'not json', '[]', '{"resourceSpans":{}}', '{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":5}]}]}]}',
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"a","value":{"intValue":"1.5"}}]}]}]}]}'];
    for (const b of bad) expect(() => decodeExportRequestJson(enc.encode(b)), b).toThrow(OtlpDecodeError);
    expect(() => decodeExportRequestJson(enc.encode(bad[4]))).toThrow('resourceSpans[0].scopeSpans[0].spans[0].name');
  });
});

describe('responses', () => {
  it('a full success is the empty message; partial success carries count and message', () => {
    expect(encodeExportResponse()).toHaveLength(0);
    expect(encodeExportResponseJson()).toBe('{}');
    const p = { rejectedSpans: 3, errorMessage: 'a/b: invalid trace_id' };
    expect(decodeExportResponse(encodeExportResponse(p))).toEqual(p);
    expect(JSON.parse(encodeExportResponseJson(p))).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: p.errorMessage } });
    expect(decodeExportResponseJson(encodeExportResponseJson(p))).toEqual(p);
    expect(decodeExportResponse(new Uint8Array(0))).toBeUndefined();
  });

  it('google.rpc.Status in protobuf and JSON', () => {
    expect(decodeStatus(encodeStatus(3, 'bad body'))).toEqual({ code: 3, message: 'bad body' });
  });
});
