// Canonical spans for unit tests.
import { AttributeList } from '../../model/attributes/list.ts';
import { SPAN_FIELDS, type Span } from '../../model/span.ts';

let counter = 0;

/** A valid span with distinct ids; `overrides` replaces fields. */
export function makeSpan(overrides: Partial<Span> = {}): Span {
  counter++;
  const hex = counter.toString(16).padStart(16, '0');
  return {
    traceId: '4bf92f3577b34da6' + hex,
    spanId: hex,
    name: `span-${counter}`,
    kind: 0,
    startNs: 1776363498000000000n,
    endNs: 1776363499500000000n,
    status: { code: 0 },
    attributes: new AttributeList([['ag.type.span', 'task']]),
    ...overrides,
  };
}

export function makeSpans(n: number): Span[] {
  return Array.from({ length: n }, () => makeSpan());
}

/**
 * `span` in the shape receivers build (every SPAN_FIELDS member present, undefined where absent), for
 * toStrictEqual against decoded spans: strict equality still tells an absent field from an empty one.
 */
export function withAllFields(span: Span): Span {
  const out: Record<string, unknown> = {};
  for (const field of SPAN_FIELDS) out[field] = span[field];
  return out as unknown as Span;
}

/** Every field of Span set, and of its events, links, references, scope and OTLP extras, with the values a
 *  codec gets wrong first (bigint beyond int64, -0, NaN, lone surrogates in a value and a key, ''): a field
 *  added to Span fails the build here until it is set, and then the codecs' round-trip tests until they
 *  carry it. */
export function everyFieldSpan(): Required<Span> {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    parentId: 'a1b2c3d4e5f60718',
    name: 'chat ünïcode 🚀',
    kind: 3,
    startNs: 1776363498123456789n,
    endNs: 18446744073709551615n, // beyond int64
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
      ['empty', ''],
      ['mixed', ['a', 2, 3.5, true, null, 12345678901234567890n]],
      ['lone.surrogate', 'a\ud800b'],
      // A key that is not well-formed UTF-16 (OTLP/JSON can carry one: "k\ud800") is written as UTF-16 units.
      ['k\ud800', 'lone surrogate key'],
      ['long', 'x'.repeat(300)],
    ]),
    events: [{ name: 'exception', timeNs: 5n, attributes: new AttributeList([['message', 'boom']]), droppedAttributesCount: 1 }],
    links: [{
      traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', attributes: new AttributeList([['l', true]]),
      traceState: 'x=y', flags: 257, droppedAttributesCount: 3,
    }],
    references: [{ id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736', slug: 'app', version: '3', attributes: new AttributeList([['z.first', 'again']]) }],
    resource: new AttributeList([['service.name', 'shop']]),
    scope: { name: 'lib', version: '1.0', attributes: new AttributeList([['k', 'v']]) },
    otlp: {
      traceState: 'a=b', flags: 1, droppedAttributesCount: 2, droppedEventsCount: 3, droppedLinksCount: 4,
      resourceSchemaUrl: 'https://r', scopeSchemaUrl: 'https://s',
    },
    traceType: 'invocation',
    spanType: 'chat',
    sessionId: 's',
    userId: 'u',
    project: 'p',
  };
}
