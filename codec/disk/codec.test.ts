import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { decodeValue, ValueEncoder } from './codec.ts';
import { SpanEncoder } from './span-codec.ts';
import { recordOf } from '../../test/durability/helpers.ts';
import { appendRecord, decodeRecordSpans, parseRecord, stampSeq } from './record.ts';

/** One encoder for every test, as a stream keeps one for all its records. */
const values = new ValueEncoder();

/** `value` encoded alone, with no header: the bytes one append leaves. */
function encodeValue(value: unknown): Buffer {
  values.append(value, 0);
  return values.take();
}

function fullSpan(): Span {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    parentId: 'a1b2c3d4e5f60718',
    name: 'chat ünïcode 🚀',
    kind: 3,
    startNs: 1776363498123456789n,
    endNs: 18446744073709551615n, // beyond int64: stored as text
    status: { code: 2, message: 'boom' },
    attributes: new AttributeList([
      ['z.first', 1],
      ['1', 'integer-like key keeps its place'],
      ['neg.zero', -0],
      ['float', 0.1],
      ['nan', Number.NaN],
      ['max', Number.MAX_SAFE_INTEGER],
      ['big', -9223372036854775808n],
      ['null', null],
      ['bool', false],
      ['mixed', ['a', 2, 3.5, true, null, 12345678901234567890n]],
      ['lone.surrogate', 'a\ud800b'],
      ['empty', ''],
      ['long', 'x'.repeat(300)],
    ]),
    events: [],
    references: [{ id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', attributes: new AttributeList() }],
    resource: new AttributeList([['service.name', 'shop']]),
    scope: { name: 'lib', version: '1.0', attributes: new AttributeList([['k', 'v']]) },
    otlp: { traceState: 'a=b', flags: 1, droppedAttributesCount: 2, resourceSchemaUrl: 'https://x' },
    traceType: 'invocation',
    spanType: 'chat',
    sessionId: 's',
    userId: 'u',
  };
}

describe('span codec', () => {
  it('round-trips every span field exactly: bigint, Map order, -0, NaN, lone surrogates, absent vs []', () => {
    const span = fullSpan();
    const bare: Span = { ...fullSpan(), events: undefined };
    delete bare.events;
    const back = decodeValue(encodeValue([span, bare])) as Span[];
    expect(back[0]).toEqual(span);
    expect([...back[0].attributes.keys()]).toEqual([...span.attributes.keys()]);
    expect(Object.is(back[0].attributes.get('neg.zero'), -0)).toBe(true);
    expect(back[0].attributes.get('lone.surrogate')).toBe('a\ud800b');
    expect(back[0].endNs).toBe(18446744073709551615n);
    expect(back[0].events).toEqual([]);
    expect('events' in back[1]).toBe(false);
    expect(Object.keys(back[0])).toEqual(Object.keys(span));
  });

  it('keeps an own "__proto__" key as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const back = decodeValue(encodeValue(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects truncated or malformed payloads with a RangeError instead of returning garbage', () => {
    const buf = encodeValue([fullSpan()]);
    expect(() => decodeValue(buf.subarray(0, buf.length - 5))).toThrow(RangeError);
    expect(() => decodeValue(Buffer.from([99]))).toThrow(RangeError);
    expect(() => decodeValue(Buffer.concat([buf, Buffer.from([0])]))).toThrow(/trailing/);
  });

  it('writes objects of 128 keys and more, whose keys repeat later in the record, and only own keys', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 130; i++) wide[`k${i}`] = i;
    // The first object defines keys k0.., the wide one is written twice (undone at 128 keys), the last
    // one refers back to keys defined inside it.
    const value = [{ k0: 'a' }, wide, { k5: 'b', k129: 'c' }];
    const back = decodeValue(encodeValue(value)) as Array<Record<string, unknown>>;
    expect(back).toEqual(value);
    expect(Object.keys(back[1])).toEqual(Object.keys(wide));
    const inherited = Object.create({ fromProto: 1 }) as Record<string, unknown>;
    inherited.own = 2;
    expect(decodeValue(encodeValue(inherited))).toEqual({ own: 2 });
  });

  it('refuses values it cannot carry', () => {
    expect(() => encodeValue([{ f: () => 1 }])).toThrow(TypeError);
  });
});

describe('record framing', () => {
  it('checks header and payload checksums and reports a record that runs past the end as short', () => {
    const rec = recordOf([fullSpan(), fullSpan()]);
    stampSeq(rec, 2 ** 40 + 7);
    const ok = parseRecord(rec, 0, rec.length);
    expect(ok).toEqual({ kind: 'ok', seq: 2 ** 40 + 7, spans: 2, end: rec.length });
    expect(decodeRecordSpans(rec, 0, rec.length)[1].name).toBe('chat ünïcode 🚀');
    expect(parseRecord(rec, 0, rec.length - 1)).toEqual({ kind: 'short' });
    const payloadFlip = Buffer.from(rec);
    payloadFlip[rec.length - 1] ^= 1;
    expect(parseRecord(payloadFlip, 0, rec.length)).toMatchObject({ kind: 'bad', reason: 'payload checksum mismatch', end: rec.length });
    const headerFlip = Buffer.from(rec);
    headerFlip[9] ^= 1;
    expect(parseRecord(headerFlip, 0, rec.length)).toMatchObject({ kind: 'bad', reason: 'header checksum mismatch' });
  });

  it('appends records back to back in one buffer, each with its own key table, the same bytes as the record alone', () => {
    const group = new SpanEncoder();
    const first = appendRecord(group, [fullSpan()]);
    const second = appendRecord(group, [fullSpan(), fullSpan()]);
    stampSeq(group.held(), 1, first.start);
    stampSeq(group.held(), 2, second.start);
    const bytes = group.take();
    expect(second.start).toBe(first.length);
    expect(bytes.length).toBe(first.length + second.length);
    const alone = recordOf([fullSpan(), fullSpan()]);
    stampSeq(alone, 2);
    expect(bytes.subarray(second.start).equals(alone)).toBe(true);
    const p = parseRecord(bytes, second.start, bytes.length);
    expect(p).toMatchObject({ kind: 'ok', seq: 2, spans: 2 });
    expect(decodeRecordSpans(bytes, second.start, bytes.length)[1]).toEqual(fullSpan());
  });

  it('forgets a rewound record, and fills a given-back buffer again instead of a new one', () => {
    const group = new SpanEncoder();
    appendRecord(group, [fullSpan()]);
    const refused = appendRecord(group, [fullSpan()]);
    group.rewind(refused.start);
    const taken = group.take();
    expect(taken.length).toBe(refused.start);
    // While `taken` is being written, appends fill another buffer; once given back it is filled next.
    appendRecord(group, [fullSpan()]);
    group.giveBack(taken);
    const second = group.take();
    expect(second.buffer === taken.buffer).toBe(false);
    appendRecord(group, [fullSpan()]);
    expect(group.take().buffer === taken.buffer).toBe(true);
    // A value that cannot be encoded leaves nothing behind.
    expect(() => appendRecord(group, [{ ...fullSpan(), userId: (() => 1) as unknown as string }])).toThrow(TypeError);
    expect(group.held().length).toBe(0);
  });

  it('does not keep a buffer grown past 8 MiB by a huge record', () => {
    const group = new SpanEncoder();
    const huge = { ...fullSpan(), name: 'x'.repeat(9 * 1024 * 1024) };
    appendRecord(group, [huge]);
    const taken = group.take();
    group.giveBack(taken);
    appendRecord(group, [fullSpan()]);
    group.take();
    // Next filled: the buffer given back, were it kept.
    appendRecord(group, [fullSpan()]);
    expect(group.take().buffer === taken.buffer).toBe(false);
  });

  it('lets go of a buffer grown past 8 MiB by a huge value that could not be encoded', () => {
    const group = new SpanEncoder();
    const huge = { ...fullSpan(), name: 'x'.repeat(9 * 1024 * 1024), userId: (() => 1) as unknown as string };
    expect(() => appendRecord(group, [huge])).toThrow(TypeError);
    appendRecord(group, [fullSpan()]);
    expect(group.take().buffer.byteLength).toBeLessThan(8 * 1024 * 1024);
  });
});
