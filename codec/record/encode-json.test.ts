import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Span } from '../../model/span.ts';
import { encodeSpanJson } from './encode-json.ts';
import { jsonLines, jsonLinesBytes } from '../../test/helpers/json-lines.ts';

const attrs = (entries: Record<string, AttrValue>) => new AttributeList(Object.entries(entries));
const T0 = BigInt(Date.parse('2026-04-16T18:18:18Z')) * 1_000_000n;

function minimalSpan(): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    name: 'chat',
    kind: 0,
    startNs: T0,
    endNs: T0 + 1_500_000_000n,
    status: { code: 0 },
    attributes: new AttributeList(),
  };
}

/** Every in-memory field set, OTLP extras included. */
function fullSpan(): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    parentId: 'a1b2c3d4e5f60718',
    name: 'chat "q"',
    kind: 3,
    startNs: T0 + 123_456_789n,
    endNs: T0 + 1_500_000_000n,
    status: { code: 2, message: 'boom\n' },
    // A Map literal, not Object.entries: a plain object would move the integer-like key first.
    attributes: new AttributeList([
      ['ag.type.span', 'chat'], ['ag.type.trace', 'invocation'], ['ag.metrics.duration.cumulative', 1376.543211],
      ['2', 'integer-like key stays in place'], ['list', ['a', 1, true, null, 2n ** 63n]], ['nothing', null],
      ['no', false],
    ]),
    events: [
      { name: 'exception', timeNs: T0 + 1_000_000_000n, attributes: attrs({ message: 'boom' }) },
      { name: 'log', timeNs: T0 + 5n, attributes: new AttributeList(), droppedAttributesCount: 2 },
    ],
    links: [
      { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', attributes: attrs({ key: 'x' }) },
      { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'c7ad6b7169203331', attributes: new AttributeList(),
        traceState: 'k=v', flags: 1, droppedAttributesCount: 3 },
    ],
    references: [
      { id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', attributes: attrs({ key: 'application' }) },
      { slug: 'v-1', version: '3', attributes: new AttributeList() },
    ],
    resource: attrs({ 'service.name': 'shop' }),
    scope: { name: 'openai-instrumentation', version: '1.2.0', attributes: attrs({ 'a.b': 1 }) },
    otlp: {
      traceState: 'rojo=00f067aa0ba902b7', flags: 257, droppedAttributesCount: 1, droppedEventsCount: 2,
      droppedLinksCount: 3, resourceSchemaUrl: 'https://opentelemetry.io/schemas/1.26.0', scopeSchemaUrl: 'https://s',
    },
    traceType: 'invocation',
    spanType: 'chat',
    sessionId: 's-1',
    userId: 'u-1',
  };
}

describe('encodeSpanJson', () => {
  it('writes every in-memory field, in the order of span-record.md', () => {
    expect(encodeSpanJson(fullSpan())).toBe(
      '{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","parent_id":"a1b2c3d4e5f60718",' +
        '"span_name":"chat \\"q\\"","span_kind":"SPAN_KIND_CLIENT","span_type":"chat","trace_type":"invocation",' +
        '"start_time":"2026-04-16T18:18:18.123456789Z","end_time":"2026-04-16T18:18:19.5Z",' +
        '"status_code":"STATUS_CODE_ERROR","status_message":"boom\\n","session_id":"s-1","user_id":"u-1",' +
        '"attributes":{"ag.type.span":"chat","ag.type.trace":"invocation","ag.metrics.duration.cumulative":1376.543211,' +
        '"2":"integer-like key stays in place","list":["a",1,true,null,9223372036854775808],"nothing":null,"no":false},' +
        '"events":[{"name":"exception","timestamp":"2026-04-16T18:18:19Z","attributes":{"message":"boom"}},' +
        '{"name":"log","timestamp":"2026-04-16T18:18:18.000000005Z","attributes":{},"otlp":{"dropped_attributes_count":2}}],' +
        '"links":[{"trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331","attributes":{"key":"x"}},' +
        '{"trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"c7ad6b7169203331","attributes":{},' +
        '"otlp":{"trace_state":"k=v","flags":1,"dropped_attributes_count":3}}],' +
        '"references":[{"id":"4bf92f35-77b3-4da6-a3ce-929d0e0e4736","attributes":{"key":"application"}},' +
        '{"slug":"v-1","version":"3","attributes":{}}],' +
        '"resource":{"service.name":"shop"},' +
        '"scope":{"name":"openai-instrumentation","version":"1.2.0","attributes":{"a.b":1}},' +
        '"otlp":{"trace_state":"rojo=00f067aa0ba902b7","flags":257,"dropped_attributes_count":1,' +
        '"dropped_events_count":2,"dropped_links_count":3,' +
        '"resource_schema_url":"https://opentelemetry.io/schemas/1.26.0","scope_schema_url":"https://s"}}',
    );
  });

  it('is valid JSON whose values match the span', () => {
    const parsed = JSON.parse(encodeSpanJson(fullSpan()));
    expect(Object.keys(parsed)).toEqual([
      'trace_id', 'span_id', 'parent_id', 'span_name', 'span_kind', 'span_type', 'trace_type', 'start_time',
      'end_time', 'status_code', 'status_message', 'session_id', 'user_id', 'attributes', 'events', 'links',
      'references', 'resource', 'scope', 'otlp',
    ]);
    expect(parsed.span_name).toBe('chat "q"');
    expect(parsed.status_message).toBe('boom\n');
  });

  it('omits absent optional fields (never null) and always writes span_kind and status_code', () => {
    expect(encodeSpanJson(minimalSpan())).toBe(
      '{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","span_name":"chat",' +
        '"span_kind":"SPAN_KIND_UNSPECIFIED","start_time":"2026-04-16T18:18:18Z","end_time":"2026-04-16T18:18:19.5Z",' +
        '"status_code":"STATUS_CODE_UNSET","attributes":{}}',
    );
  });

  it('keeps present-but-empty lists distinct from absent ones', () => {
    const span = { ...minimalSpan(), events: [], links: [], references: [] };
    expect(encodeSpanJson(span)).toMatch(/,"attributes":\{\},"events":\[\],"links":\[\],"references":\[\]\}$/);
  });

  it('writes a scope without version or attributes, and no otlp member when none of its fields is set', () => {
    const span = { ...minimalSpan(), scope: { name: 's' }, otlp: {} };
    expect(encodeSpanJson(span)).toMatch(/,"attributes":\{\},"scope":\{"name":"s"\}\}$/);
  });

  it('names every span kind and status code', () => {
    const kinds = [0, 1, 2, 3, 4, 5].map((kind) => JSON.parse(encodeSpanJson({ ...minimalSpan(), kind })).span_kind);
    expect(kinds).toEqual([
      'SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER',
      'SPAN_KIND_CONSUMER',
    ]);
    const codes = [0, 1, 2].map((code) => JSON.parse(encodeSpanJson({ ...minimalSpan(), status: { code } })).status_code);
    expect(codes).toEqual(['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR']);
  });

  it('writes int64 values beyond 2^53 with every digit, unquoted', () => {
    const span = { ...minimalSpan(), attributes: attrs({ max: 9223372036854775807n, min: -9223372036854775808n, safe: 2 ** 53 - 1 }) };
    expect(encodeSpanJson(span)).toContain(
      '"attributes":{"max":9223372036854775807,"min":-9223372036854775808,"safe":9007199254740991}',
    );
  });

  it('writes doubles as JavaScript prints them, and a stray non-finite number as its string name', () => {
    const span = { ...minimalSpan(), attributes: attrs({ a: 0.1, b: 1e21, c: -0, d: Number.NaN, e: -Infinity, f: 'Infinity' }) };
    expect(encodeSpanJson(span)).toContain(
      '"attributes":{"a":0.1,"b":1e+21,"c":0,"d":"NaN","e":"-Infinity","f":"Infinity"}',
    );
  });

  it('escapes keys and strings (quotes, control characters, lone surrogates)', () => {
    const span = { ...minimalSpan(), attributes: attrs({ 'k"\\': 'a\u0000b\ud800', 'ü': '😀' }) };
    const text = encodeSpanJson(span);
    expect(text).toContain('"attributes":{"k\\"\\\\":"a\\u0000b\\ud800","ü":"😀"}');
    expect(JSON.parse(text).attributes).toEqual({ 'k"\\': 'a\u0000b\ud800', 'ü': '😀' });
  });
});

describe('attributes_shape: nested', () => {
  it('E1: the nested shape of ag-namespace.md', () => {
    const span = {
      ...minimalSpan(),
      attributes: attrs({
        'ag.type.span': 'llm', 'ag.type.trace': 'invocation', 'ag.data.inputs.docs.0.text': 'a',
        'ag.data.inputs.docs.1.text': 'b', 'ag.data.inputs.ids': [1, 2], 'ag.metrics.duration.cumulative': 1500,
        'http.method': 'POST', 'http.route': '/x',
      }),
    };
    const text = encodeSpanJson(span, { attributesShape: 'nested' });
    expect(text).toContain(
      '"attributes":{"ag":{"type":{"span":"llm","trace":"invocation"},' +
        '"data":{"inputs":{"docs":[{"text":"a"},{"text":"b"}],"ids":[1,2]}},' +
        '"metrics":{"duration":{"cumulative":1500}}},"http":{"method":"POST","route":"/x"}}}',
    );
  });

  it('E15: shadowed keys go under a top-level _shadowed member', () => {
    const span = {
      ...minimalSpan(),
      attributes: attrs({
        'ag.type.span': 'task', 'ag.type.trace': 'invocation', 'ag.data.outputs': 'text',
        'ag.metrics.duration.cumulative': 1500, 'ag.unsupported._shadowed.data.outputs.toolCalls.0.id': 'c1',
        a: 1, 'a.b': 2,
      }),
    };
    const text = encodeSpanJson(span, { attributesShape: 'nested' });
    expect(text).toContain(
      '"attributes":{"ag":{"type":{"span":"task","trace":"invocation"},"data":{"outputs":"text"},' +
        '"metrics":{"duration":{"cumulative":1500}},' +
        '"unsupported":{"_shadowed":{"data":{"outputs":{"toolCalls":[{"id":"c1"}]}}}}},' +
        '"a":1,"_shadowed":{"a.b":2}}',
    );
  });

  it('writes bigint values inside the nested tree exactly, and leaves resource and events flat', () => {
    const span = {
      ...minimalSpan(),
      attributes: attrs({ 'x.big': 12345678901234567890n, 'x.list': [1n, 2n ** 60n] }),
      resource: attrs({ 'service.name': 'shop' }),
      events: [{ name: 'e', timeNs: T0, attributes: attrs({ 'a.b': 1 }) }],
    };
    const text = encodeSpanJson(span, { attributesShape: 'nested' });
    expect(text).toContain('"attributes":{"x":{"big":12345678901234567890,"list":[1,1152921504606846976]}}');
    expect(text).toContain('"attributes":{"a.b":1}');
    expect(text).toContain('"resource":{"service.name":"shop"}');
  });
});

describe('JSON lines', () => {
  it('writes one record per line, each ending in a newline', () => {
    const a = minimalSpan();
    const b = { ...minimalSpan(), spanId: 'a1b2c3d4e5f60718' };
    expect(jsonLines([a, b])).toBe(encodeSpanJson(a) + '\n' + encodeSpanJson(b) + '\n');
    expect(jsonLines([])).toBe('');
  });

  it('holds multi-byte characters and grows past its first guess of the size', () => {
    const spans = [minimalSpan(), { ...minimalSpan(), name: 'ü😀'.repeat(2000) }, { ...minimalSpan(), name: 'z' }];
    expect(jsonLines(spans)).toBe(spans.map((s) => encodeSpanJson(s) + '\n').join(''));
    expect(jsonLinesBytes([]).length).toBe(0);
  });
});

describe('the byte writer behind every form', () => {
  const text = (s: string) => JSON.stringify(s);
  it('writes each string as JSON.stringify does, short and long, ASCII or not', () => {
    const samples = ['', 'plain', 'q"b\\', 'tab\tnl\n\u001f', '\u007f del', 'é ü 😀', 'lone \udc00 low', 'x'.repeat(300),
      'y'.repeat(300) + '"', 'ü'.repeat(200), '\ufffd replacement', 'z'.repeat(64), 'z'.repeat(65),
      'long '.repeat(20) + '\ud800', 'long '.repeat(20) + '\u0007', 'long '.repeat(20) + '\\', 'long '.repeat(20) + '\ue000',
      'long '.repeat(20) + '😀\ufffd', '\udbff\udfff'.repeat(40)];
    for (const s of samples) {
      const span = { ...minimalSpan(), name: s, attributes: attrs({ [s]: s }) };
      const line = encodeSpanJson(span);
      expect(line).toContain(`"span_name":${text(s)}`);
      expect(line).toContain(`"attributes":{${text(s)}:${text(s)}}`);
      expect(jsonLinesBytes([span]).toString('utf8')).toBe(line + '\n');
    }
  });

  it('writes repeated and escaped keys the same every time (keys are cached in encoded form)', () => {
    const keys = ['a.b', 'k"\\', 'ü.key', 'z'.repeat(200)];
    const span = { ...minimalSpan(), attributes: attrs(Object.fromEntries(keys.map((k, i) => [k, i]))) };
    const expected = '"attributes":{' + keys.map((k, i) => `${text(k)}:${i}`).join(',') + '}';
    for (let round = 0; round < 3; round++) expect(encodeSpanJson(span)).toContain(expected);
    const lines = jsonLines([span, span]).split('\n');
    expect(lines[0]).toContain(expected);
    expect(lines[1]).toContain(expected);
  });

  it('writes integers and other numbers as JavaScript prints them', () => {
    const values = [0, 7, 10, 99, 100, 12345, 2147483647, 2147483648, -1, -0, 1.5, 1e21, 4294967295];
    const span = { ...minimalSpan(), attributes: attrs(Object.fromEntries(values.map((v, i) => ['n' + i, v]))) };
    const parsed = JSON.parse(encodeSpanJson(span)).attributes;
    values.forEach((v, i) => expect(parsed['n' + i]).toBe(v === -0 ? 0 : v));
    expect(encodeSpanJson(span)).toContain('"n6":2147483647,"n7":2147483648,"n8":-1,"n9":0,"n10":1.5,"n11":1e+21');
  });

  it('grows its buffer for records larger than the first guess, in every form', () => {
    const big = { ...minimalSpan(), attributes: attrs({ text: 'é'.repeat(50_000), list: Array.from({ length: 5000 }, (_, i) => i) }) };
    const line = encodeSpanJson(big);
    expect(JSON.parse(line).attributes.text).toBe('é'.repeat(50_000));
    expect(jsonLinesBytes([minimalSpan(), big, minimalSpan()]).toString('utf8'))
      .toBe(encodeSpanJson(minimalSpan()) + '\n' + line + '\n' + encodeSpanJson(minimalSpan()) + '\n');
  });

  it('after a batch of one huge span, the next batch does not start with gigabytes', () => {
    const huge = { ...minimalSpan(), attributes: attrs({ text: 'x'.repeat(8_000_000) }) };
    jsonLinesBytes([huge]);
    const small = Array.from({ length: 1024 }, () => minimalSpan());
    const bytes = jsonLinesBytes(small);
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(bytes.toString('utf8')).toBe(small.map((s) => encodeSpanJson(s) + '\n').join(''));
  });

  it('the nested shape and every optional part come out the same in the string and Buffer forms', () => {
    const span = fullSpan();
    expect(jsonLinesBytes([span], { attributesShape: 'nested' }).toString('utf8'))
      .toBe(encodeSpanJson(span, { attributesShape: 'nested' }) + '\n');
  });

  it('spans sharing resource and scope objects get the same text as spans with their own copies', () => {
    const resource = attrs({ 'service.name': 'shop', 'service.version': '1.0' });
    const scope = { name: 'lib', version: '2', attributes: attrs({ 'a.b': 1 }) };
    const other = attrs({ 'service.name': 'other' });
    const shared = [
      { ...minimalSpan(), resource, scope }, { ...minimalSpan(), resource, scope }, { ...minimalSpan(), resource: other, scope },
      { ...minimalSpan(), resource, scope: undefined }, { ...minimalSpan(), resource, scope }, { ...minimalSpan(), scope },
      minimalSpan(), { ...minimalSpan(), resource, scope },
    ];
    const copies = shared.map((s) => ({
      ...s,
      resource: s.resource && new AttributeList(s.resource),
      scope: s.scope && { ...s.scope, attributes: s.scope.attributes && new AttributeList(s.scope.attributes) },
    }));
    const expected = copies.map((s) => encodeSpanJson(s) + '\n').join('');
    expect(jsonLines(shared)).toBe(expected);
    // One record at a time: nothing of the previous record may leak in.
    expect(shared.map((s) => encodeSpanJson(s) + '\n').join('')).toBe(expected);
    expect(encodeSpanJson(shared[0])).toContain('"resource":{"service.name":"shop","service.version":"1.0"},' +
      '"scope":{"name":"lib","version":"2","attributes":{"a.b":1}}}');
  });
});
