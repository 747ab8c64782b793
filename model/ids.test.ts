import { describe, expect, it } from 'vitest';
import {
  isCanonicalHexId, normaliseSpanId, normaliseTraceId, normaliseUuid, RandomIds,
  spanIdHex,
} from './ids.ts';

const T32 = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('ids (ingest-api.md §4.3)', () => {
  it('32 hex in any case: trace id lowercased; as span id the last 16', () => {
    expect(normaliseTraceId('4BF92F3577B34DA6A3CE929D0E0E4736')).toBe(T32);
    expect(normaliseTraceId(T32)).toBe(T32);
    expect(normaliseSpanId('4BF92F3577B34DA6A3CE929D0E0E4736')).toBe('a3ce929d0e0e4736');
  });

  it('16 hex: invalid as trace id, lowercased as span id', () => {
    expect(normaliseTraceId('00F067AA0BA902B7')).toBeUndefined();
    expect(normaliseSpanId('00F067AA0BA902B7')).toBe('00f067aa0ba902b7');
  });

  it('0x + 32 hex: trace id only', () => {
    expect(normaliseTraceId('0x' + T32.toUpperCase())).toBe(T32);
    expect(normaliseSpanId('0x' + T32)).toBeUndefined();
  });

  it('0x + 16 hex: span id only', () => {
    expect(normaliseTraceId('0x00f067aa0ba902b7')).toBeUndefined();
    expect(normaliseSpanId('0x00F067AA0BA902B7')).toBe('00f067aa0ba902b7');
  });

  it('dashes anywhere are removed', () => {
    expect(normaliseTraceId('4bf92f35-77b3-4da6-a3ce-929d0e0e4736')).toBe(T32);
    expect(normaliseTraceId('-4bf9-2f3577b34da6a3ce929d0e0e4736-')).toBe(T32);
    expect(normaliseSpanId('4bf92f35-77b3-4da6-a3ce-929d0e0e4736')).toBe('a3ce929d0e0e4736');
  });

  it('braces and urn:uuid: (in that order) are dropped', () => {
    expect(normaliseTraceId('{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}')).toBe(T32);
    expect(normaliseTraceId('urn:uuid:4bf92f35-77b3-4da6-a3ce-929d0e0e4736')).toBe(T32);
    expect(normaliseTraceId('urn:uuid:{4BF92F3577B34DA6A3CE929D0E0E4736}')).toBe(T32);
    expect(normaliseSpanId('urn:uuid:{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}')).toBe('a3ce929d0e0e4736');
    expect(normaliseTraceId('{urn:uuid:4bf92f35-77b3-4da6-a3ce-929d0e0e4736}')).toBeUndefined();
    expect(normaliseTraceId('{4bf92f35-77b3-4da6-a3ce-929d0e0e4736')).toBeUndefined();
    expect(normaliseTraceId('{{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}}')).toBeUndefined();
  });

  it('all zero after normalisation is invalid (span id: spanIdHex keeps it for parent_id)', () => {
    expect(normaliseTraceId('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(normaliseTraceId('0x' + '0'.repeat(32))).toBeUndefined();
    expect(normaliseSpanId('0000000000000000')).toBeUndefined();
    expect(normaliseSpanId('4bf92f3577b34da60000000000000000')).toBeUndefined();
    expect(spanIdHex('0000000000000000')).toBe('0000000000000000');
  });

  it.each([
    'abc123abc123abc', // 15
    '4bf92f3577b34da6a3ce929d0e0e473', // 31
    '4bf92f3577b34da6a3ce929d0e0e47361', // 33
    '4bf92f3577b34da6a3ce929d0e0e473g',
    '0X4bf92f3577b34da6a3ce929d0e0e4736',
    ' 4bf92f3577b34da6a3ce929d0e0e4736',
    '4bf92f35 77b3 4da6 a3ce 929d0e0e4736',
    'URN:UUID:4bf92f35-77b3-4da6-a3ce-929d0e0e4736',
    '',
  ])('invalid for both: %j', (s) => {
    expect(normaliseTraceId(s)).toBeUndefined();
    expect(normaliseSpanId(s)).toBeUndefined();
  });

  it('non-strings are invalid', () => {
    for (const v of [123, 12345678901234567890n, null, undefined, true, {}, [T32]]) {
      expect(normaliseTraceId(v)).toBeUndefined();
      expect(normaliseSpanId(v)).toBeUndefined();
    }
  });

  it('span id of length 16 must be 16 hex digits (no dashes)', () => {
    expect(normaliseSpanId('00f067aa-0ba902b')).toBeUndefined();
    expect(normaliseSpanId('0xf067aa0ba902b7')).toBeUndefined();
  });

  it('reference ids become lowercase dashed UUIDs; 0x is not a UUID form', () => {
    expect(normaliseUuid('4BF92F3577B34DA6A3CE929D0E0E4736')).toBe('4bf92f35-77b3-4da6-a3ce-929d0e0e4736');
    expect(normaliseUuid('urn:uuid:{4bf92f35-77b3-4da6-a3ce-929d0e0e4736}')).toBe('4bf92f35-77b3-4da6-a3ce-929d0e0e4736');
    expect(normaliseUuid('0x' + T32)).toBeUndefined();
    expect(normaliseUuid('abc')).toBeUndefined();
    expect(normaliseUuid(42)).toBeUndefined();
  });

  it('canonical form check: lowercase, exact length, non-zero', () => {
    expect(isCanonicalHexId(T32, 32)).toBe(true);
    expect(isCanonicalHexId(T32.toUpperCase(), 32)).toBe(false);
    expect(isCanonicalHexId('0'.repeat(32), 32)).toBe(false);
    expect(isCanonicalHexId('00f067aa0ba902b7', 16)).toBe(true);
    expect(isCanonicalHexId('00f067aa0ba902b', 16)).toBe(false);
  });

  it('random ids: right length, lowercase hex, non-zero, distinct', () => {
    const ids = new RandomIds();
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const t = ids.traceId();
      const s = ids.spanId();
      expect(isCanonicalHexId(t, 32)).toBe(true);
      expect(isCanonicalHexId(s, 16)).toBe(true);
      seen.add(t);
    }
    expect(seen.size).toBe(3000);
    expect(ids.hex(12)).toMatch(/^[0-9a-f]{12}$/);
  });
});
