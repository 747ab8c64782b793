import { describe, expect, it } from 'vitest';
import type { Span } from '../../model/span.ts';
import { decodeValue } from './codec.ts';
import { SpanEncoder } from './span-codec.ts';
import { recordBounds, recordOf, thr1Backlog } from '../../test/durability/helpers.ts';
import { thr1BacklogRecords } from '../../test/durability/fixtures/thr1-backlog.ts';
import { everyFieldSpan } from '../../test/helpers/spans.ts';
import { appendRecord, decodeRecordSpans, HEADER_BYTES, MAGIC_V1, parseRecord, stampSeq } from './record.ts';

describe('THR1 payloads (decodeValue), as an earlier release wrote them', () => {
  it('reads every span of the fixture segment exactly: bigint, order, -0, lone surrogates in values and keys, absent vs []', () => {
    const buf = thr1Backlog();
    const records = recordBounds(buf, 'THR1 fixture');
    const expected = thr1BacklogRecords();
    expect(records).toHaveLength(expected.length);
    records.forEach(({ start, end }, i) => {
      expect(buf.readUInt32LE(start)).toBe(MAGIC_V1);
      const back = decodeValue(buf, start + HEADER_BYTES, end) as Span[];
      expect(back).toStrictEqual(expected[i]);
      expect(decodeRecordSpans(buf, start, end)).toStrictEqual(expected[i]);
      back.forEach((span, j) => expect(Object.keys(span)).toEqual(Object.keys(expected[i][j])));
    });
    const [[full]] = records.map(({ start, end }) => decodeRecordSpans(buf, start, end));
    expect([...full.attributes.keys()]).toEqual([...expected[0][0].attributes.keys()]);
    expect(Object.is(full.attributes.get('neg.zero'), -0)).toBe(true);
    expect(full.attributes.get('lone.surrogate')).toBe('a\ud800b');
    expect(full.attributes.get('k\ud800')).toBe('a key that is not well-formed UTF-16');
    expect(full.endNs).toBe(18446744073709551615n);
  });

  it('keeps an own "__proto__" key as data', () => {
    const key = (k: string) => [7, k.length, ...Buffer.from(k)];
    // T_OBJECT of 2: "__proto__" -> T_OBJECT of 1 ("polluted" -> true), "a" -> int32 1.
    const bytes = Buffer.from([10, 2, ...key('__proto__'), 10, 1, ...key('polluted'), 3, ...key('a'), 4, 1, 0, 0, 0]);
    const back = decodeValue(bytes) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__', 'a']);
    expect(back.a).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects truncated or malformed payloads with a RangeError instead of returning garbage', () => {
    const buf = thr1Backlog();
    const [{ start, end }] = recordBounds(buf, 'THR1 fixture');
    const payload = buf.subarray(start + HEADER_BYTES, end);
    expect(() => decodeValue(payload.subarray(0, payload.length - 5))).toThrow(RangeError);
    expect(() => decodeValue(Buffer.from([99]))).toThrow(RangeError);
    expect(() => decodeValue(Buffer.concat([payload, Buffer.from([0])]))).toThrow(/trailing/);
  });
});

describe('record framing', () => {
  it('checks header and payload checksums and reports a record that runs past the end as short', () => {
    const rec = recordOf([everyFieldSpan(), everyFieldSpan()]);
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
    const first = appendRecord(group, [everyFieldSpan()]);
    const second = appendRecord(group, [everyFieldSpan(), everyFieldSpan()]);
    stampSeq(group.held(), 1, first.start);
    stampSeq(group.held(), 2, second.start);
    const bytes = group.take();
    expect(second.start).toBe(first.length);
    expect(bytes.length).toBe(first.length + second.length);
    const alone = recordOf([everyFieldSpan(), everyFieldSpan()]);
    stampSeq(alone, 2);
    expect(bytes.subarray(second.start).equals(alone)).toBe(true);
    const p = parseRecord(bytes, second.start, bytes.length);
    expect(p).toMatchObject({ kind: 'ok', seq: 2, spans: 2 });
    expect(decodeRecordSpans(bytes, second.start, bytes.length)[1]).toEqual(everyFieldSpan());
  });

  it('forgets a rewound record, and fills a given-back buffer again instead of a new one', () => {
    const group = new SpanEncoder();
    appendRecord(group, [everyFieldSpan()]);
    const refused = appendRecord(group, [everyFieldSpan()]);
    group.rewind(refused.start);
    const taken = group.take();
    expect(taken.length).toBe(refused.start);
    // While `taken` is being written, appends fill another buffer; once given back it is filled next.
    appendRecord(group, [everyFieldSpan()]);
    group.giveBack(taken);
    const second = group.take();
    expect(second.buffer === taken.buffer).toBe(false);
    appendRecord(group, [everyFieldSpan()]);
    expect(group.take().buffer === taken.buffer).toBe(true);
    // A value that cannot be encoded leaves nothing behind.
    expect(() => appendRecord(group, [{ ...everyFieldSpan(), userId: (() => 1) as unknown as string }])).toThrow(TypeError);
    expect(group.held().length).toBe(0);
  });

  it('does not keep a buffer grown past 8 MiB by a huge record', () => {
    const group = new SpanEncoder();
    const huge = { ...everyFieldSpan(), name: 'x'.repeat(9 * 1024 * 1024) };
    appendRecord(group, [huge]);
    const taken = group.take();
    group.giveBack(taken);
    appendRecord(group, [everyFieldSpan()]);
    group.take();
    // Next filled: the buffer given back, were it kept.
    appendRecord(group, [everyFieldSpan()]);
    expect(group.take().buffer === taken.buffer).toBe(false);
  });

  it('lets go of a buffer grown past 8 MiB by a huge value that could not be encoded', () => {
    const group = new SpanEncoder();
    const huge = { ...everyFieldSpan(), name: 'x'.repeat(9 * 1024 * 1024), userId: (() => 1) as unknown as string };
    expect(() => appendRecord(group, [huge])).toThrow(TypeError);
    appendRecord(group, [everyFieldSpan()]);
    expect(group.take().buffer.byteLength).toBeLessThan(8 * 1024 * 1024);
  });
});
