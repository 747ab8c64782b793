// ExportRequestEncoder.encodeRequests (cut while encoding) against its encode (whole requests): on random spans
// and limits, every request it cuts must be byte for byte the whole-request encoding of its spans.
import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Attributes, Span, SpanScope } from '../../model/span.ts';
import { ExportRequestEncoder } from './encode-proto.ts';
import { ProtoWriter } from './proto-writer.ts';
import { seededRandom } from '../../test/helpers/random.ts';

const requestEncoder = new ExportRequestEncoder();

function randomSpans(rand: () => number, count: number): Span[] {
  const resources: Array<Attributes | undefined> = [
    undefined,
    new AttributeList([['service.name', 'a']]),
    new AttributeList([['service.name', 'b'], ['host', 'h'.repeat(200)]]),
  ];
  const scopes: Array<SpanScope | undefined> = [undefined, { name: 'lib' }, { name: 'other', version: '1', attributes: new AttributeList([['k', 'v']]) }];
  const urls = ['', 'https://opentelemetry.io/schemas/1.26.0'];
  const spans: Span[] = [];
  for (let i = 0; i < count; i++) {
    // Payloads around the 128 and 16384 byte varint steps, and now and then a huge one.
    const r = rand();
    const payload = r < 0.05 ? 20_000 : r < 0.3 ? Math.floor(rand() * 300) : Math.floor(rand() * 40);
    const span: Span = {
      traceId: 'ab'.repeat(16),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      name: `s${i}`,
      kind: 1,
      startNs: 1_000_000_000n * BigInt(i + 1),
      endNs: 1_000_000_000n * BigInt(i + 1) + 7n,
      status: { code: 0 },
      attributes: new AttributeList([['p', 'x'.repeat(payload)], ['n', i]]),
      resource: resources[Math.floor(rand() * resources.length)],
      scope: scopes[Math.floor(rand() * scopes.length)],
    };
    if (rand() < 0.2) span.otlp = { resourceSchemaUrl: urls[Math.floor(rand() * 2)], scopeSchemaUrl: urls[Math.floor(rand() * 2)] };
    spans.push(span);
  }
  return spans;
}

interface Cut {
  requests: Array<{ bytes: Uint8Array; spans: Span[] }>;
  order: Span[];
  tooLarge: Array<{ span: Span; bytes: number }>;
}

function cut(spans: Span[], limit: number, writer = new ProtoWriter(256)): Cut {
  const out: Cut = { requests: [], order: [], tooLarge: [] };
  requestEncoder.encodeRequests(writer, spans, limit, {
    request: (bytes, order, start, end) => {
      out.order = order;
      out.requests.push({ bytes: Uint8Array.from(bytes), spans: order.slice(start, end) });
    },
    tooLarge: (span, bytes) => out.tooLarge.push({ span, bytes }),
  });
  return out;
}

describe('ExportRequestEncoder.encodeRequests', () => {
  it('without a limit makes exactly encode', () => {
    const rand = seededRandom(7);
    for (let round = 0; round < 20; round++) {
      const spans = randomSpans(rand, 1 + Math.floor(rand() * 40));
      const { requests, tooLarge } = cut(spans, Infinity);
      expect(requests.length).toBe(1);
      expect(Buffer.from(requests[0].bytes).equals(Buffer.from(requestEncoder.encode(spans)))).toBe(true);
      expect(tooLarge).toEqual([]);
    }
  });

  it('cuts requests under the limit, each the whole-request encoding of its spans, cut only when needed', () => {
    const rand = seededRandom(42);
    for (let round = 0; round < 60; round++) {
      const spans = randomSpans(rand, 1 + Math.floor(rand() * 60));
      const limit = 600 + Math.floor(rand() * 25_000);
      // A writer shared across calls, as the Kafka exporter does within an export call.
      const writer = new ProtoWriter(1024);
      writer.raw(new Uint8Array(100));
      const { requests, tooLarge } = cut(spans, limit, writer);
      const sent = new Set<Span>();
      for (let r = 0; r < requests.length; r++) {
        const { bytes, spans: part } = requests[r];
        expect(bytes.length).toBeLessThanOrEqual(limit);
        expect(Buffer.from(bytes).equals(Buffer.from(requestEncoder.encode(part)))).toBe(true);
        for (const s of part) sent.add(s);
      }
      for (const { span, bytes } of tooLarge) {
        expect(bytes).toBe(requestEncoder.encode([span]).length);
        expect(bytes).toBeGreaterThan(limit);
        expect(sent.has(span)).toBe(false);
      }
      // Every span is in exactly one request or set aside.
      expect(sent.size + tooLarge.length).toBe(spans.length);
      // Greedy: a request was closed only because the next span did not fit with it.
      const order = cut(spans, Infinity).order;
      for (let r = 0; r < requests.length - 1; r++) {
        const part = requests[r].spans;
        const next = order[order.indexOf(part[part.length - 1]) + 1];
        if (tooLarge.some((t) => t.span === next)) continue;
        expect(requestEncoder.encode([...part, next]).length).toBeGreaterThan(limit);
      }
    }
  });

  it('keeps spans grouped by resource and scope in first-appearance order, batch order within', () => {
    const rand = seededRandom(3);
    const spans = randomSpans(rand, 50);
    const { order } = cut(spans, Infinity);
    const key = (s: Span) => `${s.resource?.get('service.name')}|${s.scope?.name}|${s.otlp?.resourceSchemaUrl ?? ''}|${s.otlp?.scopeSchemaUrl ?? ''}`;
    for (const k of new Set(spans.map(key))) {
      expect(order.filter((s) => key(s) === k)).toEqual(spans.filter((s) => key(s) === k));
    }
    expect(new Set(order)).toEqual(new Set(spans));
  });
});
