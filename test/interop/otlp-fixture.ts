// What the interop tests send, and one comparable shape for everything that comes back: the
// Collector's file exporter (OTLP/JSON lines) and tracehop's file exporter (span records, JSON lines).
//
// The fixture is an OTLP/JSON ExportTraceServiceRequest written by hand so it covers what generic SDK
// output does not: two resources, two scopes under one resource (one with attributes and a schema URL),
// trace_state and flags, int64 extremes, unicode, empty strings, arrays, an empty value, events with and
// without attributes, links with attributes and trace_state, every status code and several kinds.
// It avoids the documented lossy cases of otlp.md (integral doubles, bytes, kvlist), which have their
// own unit tests in the codec.

const T0 = 1776363498123456789n;
const ns = (offset: bigint) => String(T0 + offset);

const TRACE_A = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_B = 'a0b1c2d3e4f5061728394a5b6c7d8e9f';

export const FIXTURE_SPAN_COUNT = 5;

export function fixtureRequest() {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'shop' } },
            { key: 'service.version', value: { stringValue: '1.4.2' } },
            { key: 'host.cpus', value: { intValue: '2' } },
          ],
        },
        schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
        scopeSpans: [
          {
            scope: {
              name: 'openai-instrumentation',
              version: '1.2.0',
              attributes: [{ key: 'scope.flavour', value: { stringValue: 'vanilla' } }],
            },
            schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
            spans: [
              {
                traceId: TRACE_A,
                spanId: '00f067aa0ba902b7',
                traceState: 'vendor=abc,other=1',
                flags: 1,
                name: 'agent run',
                kind: 2,
                startTimeUnixNano: ns(0n),
                endTimeUnixNano: ns(1_500_000_001n),
                attributes: [
                  { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                  { key: 'text.unicode', value: { stringValue: 'héllo wörld ✓ 🚀 日本' } },
                  { key: 'text.empty', value: { stringValue: '' } },
                  { key: 'count', value: { intValue: '42' } },
                  { key: 'negative', value: { intValue: '-7' } },
                  { key: 'int64.max', value: { intValue: '9223372036854775807' } },
                  { key: 'int64.min', value: { intValue: '-9223372036854775808' } },
                  { key: 'ratio', value: { doubleValue: 0.125 } },
                  { key: 'flag.on', value: { boolValue: true } },
                  { key: 'flag.off', value: { boolValue: false } },
                  {
                    key: 'list.str',
                    value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } },
                  },
                  {
                    key: 'list.mixed',
                    value: {
                      arrayValue: { values: [{ intValue: '1' }, { doubleValue: 2.5 }, { boolValue: true }] },
                    },
                  },
                  { key: 'nothing', value: {} },
                ],
                events: [
                  {
                    timeUnixNano: ns(1_000n),
                    name: 'started',
                    attributes: [
                      { key: 'step', value: { intValue: '1' } },
                      { key: 'note', value: { stringValue: 'first' } },
                    ],
                  },
                  { timeUnixNano: ns(2_000n), name: 'no attributes' },
                ],
                status: { code: 1 },
              },
              {
                traceId: TRACE_A,
                spanId: '1a2b3c4d5e6f7081',
                parentSpanId: '00f067aa0ba902b7',
                name: 'llm call',
                kind: 3,
                startTimeUnixNano: ns(10_000n),
                endTimeUnixNano: ns(30_000n),
                attributes: [
                  { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
                  { key: 'gen_ai.usage.input_tokens', value: { intValue: '12' } },
                ],
                events: [
                  {
                    timeUnixNano: ns(20_001n),
                    name: 'exception',
                    attributes: [{ key: 'exception.message', value: { stringValue: 'rate limited' } }],
                  },
                ],
                links: [
                  {
                    traceId: TRACE_B,
                    spanId: 'abcdef0123456789',
                    traceState: 'k=v',
                    attributes: [
                      { key: 'link.kind', value: { stringValue: 'follows' } },
                      { key: 'link.n', value: { intValue: '3' } },
                    ],
                  },
                ],
                status: { code: 2, message: 'upstream said 429' },
              },
            ],
          },
          {
            scope: { name: 'second.scope' },
            spans: [
              {
                traceId: TRACE_A,
                spanId: '2222222222222222',
                parentSpanId: '00f067aa0ba902b7',
                name: 'enqueue',
                kind: 4,
                startTimeUnixNano: ns(40_000n),
                endTimeUnixNano: ns(50_000n),
              },
            ],
          },
        ],
      },
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'worker' } }] },
        scopeSpans: [
          {
            scope: { name: 'worker.lib', version: '0.0.1' },
            spans: [
              {
                traceId: TRACE_B,
                spanId: 'abcdef0123456789',
                name: 'dequeue',
                kind: 5,
                startTimeUnixNano: ns(60_000n),
                endTimeUnixNano: ns(70_999n),
                links: [{ traceId: TRACE_A, spanId: '2222222222222222' }],
                status: {},
              },
              {
                traceId: TRACE_B,
                spanId: '3333333333333333',
                parentSpanId: 'abcdef0123456789',
                name: 'internal step',
                kind: 1,
                startTimeUnixNano: ns(80_000n),
                endTimeUnixNano: ns(80_001n),
                attributes: [{ key: 'empty.list', value: { arrayValue: {} } }],
              },
            ],
          },
        ],
      },
    ],
  };
}

// ---- one comparable shape ----------------------------------------------------------------------

/** An attribute value with its OTLP type kept, so an int that came back as a double is a mismatch. */
export type Typed =
  | { s: string }
  | { i: string }
  | { d: number }
  | { b: boolean }
  | { a: Typed[] }
  | { empty: true };

export interface Comparable<V> {
  traceId: string;
  spanId: string;
  parentId: string | undefined;
  name: string;
  kind: number;
  startNs: string;
  endNs: string;
  statusCode: number;
  statusMessage: string | undefined;
  traceState: string | undefined;
  /** W3C trace flags; 0 and absent are the same on the wire. */
  flags: number | undefined;
  attributes: Record<string, V>;
  events: Array<{ name: string; timeNs: string; attributes: Record<string, V> }>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, V> }>;
  resource: Record<string, V>;
  scope: { name: string; version: string | undefined; attributes: Record<string, V> };
  resourceSchemaUrl: string | undefined;
  scopeSchemaUrl: string | undefined;
}

type Json = Record<string, unknown>;

const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function typedValue(value: Json | undefined): Typed {
  if (value === undefined) return { empty: true };
  if ('stringValue' in value) return { s: String(value.stringValue) };
  if ('intValue' in value) return { i: String(value.intValue) };
  if ('doubleValue' in value) return { d: Number(value.doubleValue) };
  if ('boolValue' in value) return { b: Boolean(value.boolValue) };
  if ('arrayValue' in value) {
    const array = (value.arrayValue ?? {}) as Json;
    return { a: asList(array.values).map((v) => typedValue(v)) };
  }
  return { empty: true };
}

function typedAttributes(list: unknown): Record<string, Typed> {
  const out: Record<string, Typed> = {};
  for (const kv of asList(list)) out[String(kv.key)] = typedValue(kv.value as Json | undefined);
  return out;
}

/** Ids in OTLP/JSON are hex; the Collector writes them lowercase, but be lenient on case. */
const hex = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

/** Flattens OTLP/JSON requests (the fixture, or the Collector's file lines) into comparable spans. */
export function fromOtlpJson(requests: Json[]): Comparable<Typed>[] {
  const spans: Comparable<Typed>[] = [];
  for (const request of requests) {
    for (const rs of asList(request.resourceSpans)) {
      const resource = typedAttributes(((rs.resource ?? {}) as Json).attributes);
      for (const ss of asList(rs.scopeSpans)) {
        const scope = (ss.scope ?? {}) as Json;
        for (const span of asList(ss.spans)) {
          const status = (span.status ?? {}) as Json;
          spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentId: nonEmpty(hex(span.parentSpanId)),
            name: String(span.name ?? ''),
            kind: Number(span.kind ?? 0),
            startNs: String(span.startTimeUnixNano),
            endNs: String(span.endTimeUnixNano),
            statusCode: Number(status.code ?? 0),
            statusMessage: nonEmpty(status.message),
            traceState: nonEmpty(span.traceState),
            flags: Number(span.flags ?? 0) || undefined,
            attributes: typedAttributes(span.attributes),
            events: asList(span.events).map((e) => ({
              name: String(e.name),
              timeNs: String(e.timeUnixNano),
              attributes: typedAttributes(e.attributes),
            })),
            links: asList(span.links).map((l) => ({
              traceId: hex(l.traceId),
              spanId: hex(l.spanId),
              attributes: typedAttributes(l.attributes),
            })),
            resource,
            scope: {
              name: String(scope.name ?? ''),
              version: nonEmpty(scope.version),
              attributes: typedAttributes(scope.attributes),
            },
            resourceSchemaUrl: nonEmpty(rs.schemaUrl),
            scopeSchemaUrl: nonEmpty(ss.schemaUrl),
          });
        }
      }
    }
  }
  return sortSpans(spans);
}

export function sortSpans<T extends { spanId: string; traceId: string }>(spans: T[]): T[] {
  return spans.sort((a, b) => (a.traceId + a.spanId < b.traceId + b.spanId ? -1 : 1));
}

// ---- span records (tracehop's file output) -----------------------------------------------------

/** A plain value as a span record holds it: ints beyond 2^53 as bigint, the OTLP type otherwise lost. */
export type Plain = string | number | bigint | boolean | null | Plain[];

/** What a span record should hold for a typed OTLP value (span-record.md: null for an empty value). */
export function plain(value: Typed): Plain {
  if ('s' in value) return value.s;
  if ('i' in value) {
    const n = BigInt(value.i);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  if ('d' in value) return value.d;
  if ('b' in value) return value.b;
  if ('a' in value) return value.a.map(plain);
  return null;
}

function plainAttributes(attributes: Record<string, Typed>): Record<string, Plain> {
  const out: Record<string, Plain> = {};
  for (const [k, v] of Object.entries(attributes)) out[k] = plain(v);
  return out;
}

export function toPlain(spans: Comparable<Typed>[]): Comparable<Plain>[] {
  return spans.map((s) => ({
    ...s,
    attributes: plainAttributes(s.attributes),
    events: s.events.map((e) => ({ ...e, attributes: plainAttributes(e.attributes) })),
    links: s.links.map((l) => ({ ...l, attributes: plainAttributes(l.attributes) })),
    resource: plainAttributes(s.resource),
    scope: { ...s.scope, attributes: plainAttributes(s.scope.attributes) },
  }));
}

/** JSON.parse that keeps every digit of integers beyond 2^53 (span records write them unquoted). */
export function parseExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)) {
      return BigInt(context.source);
    }
    return value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

const KIND = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
const STATUS = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

/** ISO 8601 UTC with up to 9 fraction digits (span-record.md) to integer nanoseconds, as a string. */
export function isoToNs(iso: unknown): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(String(iso));
  if (!m) return `unparsable time ${String(iso)}`;
  const seconds = BigInt(Date.parse(`${m[1]}Z`) / 1000);
  const fraction = BigInt((m[2] ?? '').padEnd(9, '0'));
  return String(seconds * 1_000_000_000n + fraction);
}

const record = (v: unknown) => (v ?? {}) as Record<string, Plain>;

/** tracehop's span records (parsed with parseExact) into comparable spans. */
export function fromSpanRecords(records: Json[]): Comparable<Plain>[] {
  return sortSpans(
    records.map((r) => {
      const scope = (r.scope ?? {}) as Json;
      const otlp = (r.otlp ?? {}) as Json;
      return {
        traceId: String(r.trace_id),
        spanId: String(r.span_id),
        parentId: nonEmpty(r.parent_id),
        name: String(r.span_name),
        kind: KIND.indexOf(String(r.span_kind)),
        startNs: isoToNs(r.start_time),
        endNs: isoToNs(r.end_time),
        statusCode: STATUS.indexOf(String(r.status_code)),
        statusMessage: nonEmpty(r.status_message),
        traceState: nonEmpty(otlp.trace_state),
        flags: Number(otlp.flags ?? 0) || undefined,
        attributes: record(r.attributes),
        events: asList(r.events).map((e) => ({
          name: String(e.name),
          timeNs: isoToNs(e.timestamp),
          attributes: record(e.attributes),
        })),
        links: asList(r.links).map((l) => ({
          traceId: String(l.trace_id),
          spanId: String(l.span_id),
          attributes: record(l.attributes),
        })),
        resource: record(r.resource),
        scope: { name: String(scope.name ?? ''), version: nonEmpty(scope.version), attributes: record(scope.attributes) },
        resourceSchemaUrl: nonEmpty(otlp.resource_schema_url),
        scopeSchemaUrl: nonEmpty(otlp.scope_schema_url),
      };
    }),
  );
}
