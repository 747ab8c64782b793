import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import { newSpan, spanStatus, SPAN_FIELDS, type Span } from '../../model/span.ts';
import { recordOf, thr1Backlog } from '../../test/durability/helpers.ts';
import { everyFieldSpan } from '../../test/helpers/spans.ts';
import { thr1BacklogRecords } from '../../test/durability/fixtures/thr1-backlog.ts';
import { appendRecord, decodeRecordSpans, MAGIC, MAGIC_V1, parseRecord, stampSeq } from './record.ts';
import { decodeSpans, SpanEncoder } from './span-codec.ts';

const encoder = new SpanEncoder();

function roundTrip(spans: Span[]): Span[] {
  encoder.appendSpans(spans, 0);
  const bytes = encoder.take();
  const back = decodeSpans(bytes, 0, bytes.length);
  encoder.giveBack(bytes);
  return back;
}

describe('span record codec (THR2)', () => {
  it('round-trips every field of a span, its events, links, references, scope and OTLP extras exactly', () => {
    const full = everyFieldSpan();
    const [back] = roundTrip([full]);
    expect(back).toStrictEqual(full);
    for (const field of SPAN_FIELDS) expect(back[field], field).toStrictEqual(full[field]);
    expect([...back.attributes.keys()]).toEqual([...full.attributes.keys()]);
    expect(Object.is(back.attributes.get('neg.zero'), -0)).toBe(true);
    expect(back.attributes.get('lone.surrogate')).toBe('a\ud800b');
    expect(back.attributes.get('k\ud800')).toBe('lone surrogate key');
    expect(back.endNs).toBe(18446744073709551615n);
  });

  it('keeps absent apart from [] and gives decoded spans the fields of newSpan, in its order', () => {
    const bare = newSpan('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7', 'bare', 1, 1n, 2n, spanStatus(0, undefined), new AttributeList());
    const empty = { ...bare, events: [], links: [], references: [] };
    // A span built without the optional keys at all reads back with them undefined: the same to every reader.
    const sparse: Span = { traceId: bare.traceId, spanId: bare.spanId, name: 'sparse', kind: 0, startNs: 0n, endNs: 0n, status: { code: 1 }, attributes: new AttributeList() };
    const back = roundTrip([bare, empty, sparse]);
    expect(back[0]).toStrictEqual(bare);
    expect(back[1].events).toEqual([]);
    expect(back[1].links).toEqual([]);
    expect(back[1].references).toEqual([]);
    expect(back[0].events).toBeUndefined();
    expect(back[2]).toEqual(sparse);
    for (const span of back) expect(Object.keys(span)).toEqual([...SPAN_FIELDS]);
    // Statuses without a message come back as the shared objects receivers use.
    expect(back[0].status).toBe(spanStatus(0, undefined));
  });

  it('rejects truncated or malformed payloads with a RangeError, and values it cannot carry with a TypeError', () => {
    encoder.appendSpans([everyFieldSpan()], 0);
    const bytes = Buffer.from(encoder.take());
    expect(() => decodeSpans(bytes, 0, bytes.length - 5)).toThrow(RangeError);
    expect(() => decodeSpans(Buffer.concat([bytes, Buffer.from([0])]), 0, bytes.length + 1)).toThrow(/trailing/);
    expect(() => decodeSpans(Buffer.from([1, 99]), 0, 2)).toThrow(RangeError);
    const odd = { ...everyFieldSpan(), attributes: new AttributeList([['f', (() => 1) as unknown as string]]) };
    expect(() => encoder.appendSpans([odd], 0)).toThrow(TypeError);
    expect(encoder.held().length).toBe(0);
    // An object where the model allows none (an attribute value) is refused too, not written lossily.
    const nested = { ...everyFieldSpan(), attributes: new AttributeList([['o', { a: 1 } as unknown as string]]) };
    expect(() => encoder.appendSpans([nested], 0)).toThrow(TypeError);
    // A refused record keeps no reference to its spans' key lists (numbered before the failure).
    const lists = { ...everyFieldSpan(), resource: new AttributeList([['a', 1], ['b', 2]]), userId: (() => 1) as unknown as string };
    expect(() => encoder.appendSpans([lists], 0)).toThrow(TypeError);
    expect((encoder as unknown as { shapes: unknown[] }).shapes).toHaveLength(0);
    expect(encoder.held().length).toBe(0);
  });

  it('writes records with the THR2 magic, and still reads the THR1 records an earlier release wrote (fixture)', () => {
    const expected = thr1BacklogRecords();
    const earlier = thr1Backlog();
    let p = 0;
    for (let i = 0; i < expected.length; i++) {
      const parsed = parseRecord(earlier, p, earlier.length);
      expect(parsed).toMatchObject({ kind: 'ok', seq: i + 1, spans: expected[i].length });
      if (parsed.kind !== 'ok') return;
      expect(earlier.readUInt32LE(p)).toBe(MAGIC_V1);
      expect(decodeRecordSpans(earlier, p, parsed.end)).toStrictEqual(expected[i]);
      // The same spans written now: a THR2 record, smaller, read back the same.
      const current = recordOf(expected[i]);
      stampSeq(current, i + 1);
      expect(current.readUInt32LE(0)).toBe(MAGIC);
      expect(current.length).toBeLessThan(parsed.end - p);
      expect(parseRecord(current, 0, current.length)).toEqual({ kind: 'ok', seq: i + 1, spans: expected[i].length, end: current.length });
      expect(decodeRecordSpans(current, 0, current.length)).toEqual(expected[i]);
      p = parsed.end;
    }
    expect(p).toBe(earlier.length);
    const unknown = recordOf(expected[0]);
    stampSeq(unknown, 1);
    unknown.write('THR9', 0, 'latin1');
    expect(parseRecord(unknown, 0, unknown.length)).toMatchObject({ kind: 'bad', reason: 'bad magic' });
  });

  it('round-trips the spans of the THR1 fixture: lone surrogate key and value, bigints beyond int64, non-ASCII', () => {
    const spans = thr1BacklogRecords().flat();
    const back = roundTrip(spans);
    expect(back).toEqual(spans);
    expect(back[0].attributes.get('k\ud800')).toBe('a key that is not well-formed UTF-16');
    expect(back[0].attributes.get('huge')).toBe(123456789012345678901234567890n);
    expect(back[0].name).toBe('r1 chat ünïcode 🚀');
    expect(back[1].events).toEqual([]);
    expect(back[3].events).toBeUndefined();
  });

  it('numbers attribute keys afresh in each record of a group, so each record decodes alone', () => {
    const group = new SpanEncoder();
    const first = appendRecord(group, [everyFieldSpan()]);
    const second = appendRecord(group, [everyFieldSpan()]);
    stampSeq(group.held(), 1, first.start);
    stampSeq(group.held(), 1, second.start);
    const bytes = group.take();
    const alone = recordOf([everyFieldSpan()]);
    stampSeq(alone, 1);
    expect(bytes.subarray(second.start).equals(alone)).toBe(true);
    expect(bytes.subarray(first.start, first.length).equals(alone)).toBe(true);
  });

  it('writes a repeated key list by number, past the limit of numbered lists too, and each decoded list owns its arrays', () => {
    const span = (keys: string[], value: string): Span => ({
      ...newSpan('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7', value, 1, 1n, 2n, spanStatus(0, undefined), new AttributeList(keys.map((k) => [k, value]))),
    });
    // 70 distinct lists (more than are numbered), then each again, then a one-key list twice.
    const distinct = Array.from({ length: 70 }, (_, i) => [`a${i}`, `b${i}`]);
    const spans = [...distinct.map((keys, i) => span(keys, `first ${i}`)), ...distinct.map((keys, i) => span(keys, `again ${i}`)), span(['one'], 'x'), span(['one'], 'y')];
    const back = roundTrip(spans);
    expect(back).toStrictEqual(spans);
    encoder.appendSpans([span(['k1', 'k2'], 'v'), span(['k1', 'k2'], 'w')], 0);
    const repeated = Buffer.from(encoder.take());
    encoder.appendSpans([span(['k1', 'k2'], 'v'), span(['k2', 'k1'], 'w')], 0);
    const reordered = encoder.take();
    // The repeated list is its number and its values; the reordered one its size and two key references.
    expect(repeated.length).toBe(reordered.length - 4);
    const [first, second] = decodeSpans(repeated, 0, repeated.length);
    first.attributes.set('k3', 'added');
    expect([...second.attributes.keys()]).toEqual(['k1', 'k2']);
  });
});
