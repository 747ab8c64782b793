import { describe, expect, it } from 'vitest';
import { decodeExportRequest } from '../test/helpers/otlp-decode.ts';
import { ExportRequestEncoder } from '../codec/otlp/encode-proto.ts';
import { newSpan, spanStatus, type Span } from './span.ts';
import { AttributeList } from './attributes/list.ts';

const requestEncoder = new ExportRequestEncoder();

describe('spanStatus', () => {
  it('shares one object per code without a message, and gives a status with a message its own', () => {
    for (const code of [0, 1, 2]) {
      expect(spanStatus(code, undefined)).toStrictEqual({ code });
      expect(spanStatus(code, undefined)).toBe(spanStatus(code, undefined));
    }
    expect(spanStatus(2, 'boom')).toStrictEqual({ code: 2, message: 'boom' });
    expect(spanStatus(2, 'boom')).not.toBe(spanStatus(2, 'boom'));
    // Codes outside the three (validate's to judge) are kept as they are.
    expect(spanStatus(7, undefined)).toStrictEqual({ code: 7 });
    expect(spanStatus(-1, undefined)).toStrictEqual({ code: -1 });
  });

  it('is what OTLP decoding gives: spans of equal plain status share it, one with a message differs', () => {
    const span = (id: string, status: Span['status']): Span =>
      newSpan('0123456789abcdef0123456789abcdef', id, 'op', 1, 1n, 2n, status, new AttributeList());
    const bytes = requestEncoder.encode([
      span('0000000000000001', { code: 1 }), span('0000000000000002', { code: 1 }),
      span('0000000000000003', { code: 2, message: 'failed' }),
    ]);
    const [a, b, c] = decodeExportRequest(bytes).spans;
    expect(a.status).toBe(b.status);
    expect(a.status).toStrictEqual({ code: 1 });
    expect(c.status).toStrictEqual({ code: 2, message: 'failed' });
  });
});
