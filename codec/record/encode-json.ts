// The JSON span record (span-record.md "JSON encoding"): one object per span, snake_case keys in the
// fixed order below, names and values as the tracing API's flat span (ingest-api.md §4), so a written
// record can be POSTed back to /tracing/spans/ingest. This is the hot path of file and Kafka output,
// hence the hand-written writer: every record is written as UTF-8 bytes straight into one buffer
// (json-writer.ts), and the string forms are views of those bytes.
import { SPAN_KIND_NAMES, STATUS_CODE_NAMES } from '../../model/span.ts';
import type { Attributes, OtlpExtras, Span, SpanEvent, SpanLink, SpanReference, SpanScope } from '../../model/span.ts';
import { nestedShape } from '../../model/attributes/unflatten.ts';
import { SizeGuess } from '../bytes/output-buffer.ts';
import { ascii } from '../bytes/piece.ts';
import { KeyMemory } from '../bytes/piece.ts';
import { JsonWriter } from './json-writer.ts';
import { TimeText } from './time-format.ts';
import { NEWLINE } from '../bytes/ascii.ts';

export type AttributesShape = 'flat' | 'nested';

export interface JsonEncodeOptions {
  /** `nested` writes span `attributes` as the unflattened tree (ag-namespace.md §1.4); default `flat`. */
  attributesShape?: AttributesShape;
}


// The fixed pieces of the record, encoded once.
const K_TRACE_ID = ascii('{"trace_id":');
const K_SPAN_ID = ascii(',"span_id":');
const K_PARENT_ID = ascii(',"parent_id":');
const K_SPAN_NAME = ascii(',"span_name":');
const K_SPAN_TYPE = ascii(',"span_type":');
const K_TRACE_TYPE = ascii(',"trace_type":');
const K_START_TIME = ascii(',"start_time":"');
const K_END_TIME = ascii('","end_time":"');
const K_STATUS_MESSAGE = ascii(',"status_message":');
const K_SESSION_ID = ascii(',"session_id":');
const K_USER_ID = ascii(',"user_id":');
const K_PROJECT = ascii(',"project":');
const K_ATTRIBUTES = ascii(',"attributes":');
const K_EVENTS = ascii(',"events":');
const K_LINKS = ascii(',"links":');
const K_REFERENCES = ascii(',"references":');
const K_RESOURCE = ascii(',"resource":');
const K_SCOPE = ascii(',"scope":');
const K_OTLP = ascii(',"otlp":{');
const K_TIMESTAMP = ascii(',"timestamp":"');
const K_AFTER_TIME_ATTRIBUTES = ascii('","attributes":');
const K_EVENT_DROPPED = ascii(',"otlp":{"dropped_attributes_count":');
const K_LINK_TRACE_STATE = ascii('"trace_state":');
const K_ID = ascii('"id":');
const K_SLUG = ascii('"slug":');
const K_VERSION = ascii('"version":');
const K_EVENT_FIRST = ascii('{"name":');
const K_EVENT_NEXT = ascii(',{"name":');
// The enums are always written by name. An out-of-range number (a bug upstream) would otherwise give
// `undefined` in the text; UNSPECIFIED / UNSET are what the API reads for an absent value. Each member
// is one piece with its key and quotes (one copy instead of three).
const KIND_MEMBERS = SPAN_KIND_NAMES.map((name) => ascii(`,"span_kind":"${name}"`));
const STATUS_MEMBERS = STATUS_CODE_NAMES.map((name) => ascii(`","status_code":"${name}"`));
const K_FIRST_ATTRIBUTES = ascii('"attributes":');
const K_SCOPE_NAME = ascii('{"name":');
const K_SCOPE_VERSION = ascii(',"version":');

/** One span as one JSON object, without a trailing newline. */
export function encodeSpanJson(span: Span, options?: JsonEncodeOptions): string {
  const w = new JsonWriter(4096);
  writeSpan(w, span, options?.attributesShape === 'nested', new TimeText());
  return w.buf.toString('utf8', 0, w.pos);
}

/**
 * The JSON lines of `spans` (at least one) in a writer whose bytes are the batch: written into `spare`
 * when it holds the size `size` expects from the last batch, else into a new buffer (see
 * BatchLinesEncoder, which keeps `keys` and `size` from batch to batch).
 */
export function writeBatchJsonLines(
  spans: readonly Span[], options: JsonEncodeOptions | undefined, spare: Buffer | undefined, keys: KeyMemory, size: SizeGuess,
): JsonWriter {
  const nested = options?.attributesShape === 'nested';
  const expected = size.bytesFor(spans.length, 256);
  const w = new JsonWriter(expected, spare !== undefined && spare.length >= expected ? spare : undefined, keys);
  const times = new TimeText();
  for (let i = 0; i < spans.length; i++) {
    writeSpan(w, spans[i], nested, times);
    w.byte(NEWLINE);
  }
  size.learn(w.pos, spans.length);
  return w;
}

// The `sameString` slots: fields whose value mostly repeats between neighbouring spans (the spans of a
// request share a trace, siblings a parent; names and types come from a few instrumentation points).
const SAME_TRACE_ID = 0;
const SAME_PARENT_ID = 1;
const SAME_SPAN_NAME = 2;
const SAME_SPAN_TYPE = 3;
const SAME_TRACE_TYPE = 4;
const SAME_EVENT_NAME = 5;
const SAME_PROJECT = 6;

function writeSpan(w: JsonWriter, span: Span, nested: boolean, times: TimeText): void {
  w.copy(K_TRACE_ID);
  w.sameString(SAME_TRACE_ID, span.traceId);
  w.copy(K_SPAN_ID);
  w.string(span.spanId);
  if (span.parentId !== undefined) {
    w.copy(K_PARENT_ID);
    w.sameString(SAME_PARENT_ID, span.parentId);
  }
  w.copy(K_SPAN_NAME);
  w.sameString(SAME_SPAN_NAME, span.name);
  w.copy(KIND_MEMBERS[span.kind] ?? KIND_MEMBERS[0]);
  if (span.spanType !== undefined) {
    w.copy(K_SPAN_TYPE);
    w.sameString(SAME_SPAN_TYPE, span.spanType);
  }
  if (span.traceType !== undefined) {
    w.copy(K_TRACE_TYPE);
    w.sameString(SAME_TRACE_TYPE, span.traceType);
  }
  w.copy(K_START_TIME);
  times.write(w, span.startNs);
  w.copy(K_END_TIME);
  times.write(w, span.endNs);
  w.copy(STATUS_MEMBERS[span.status.code] ?? STATUS_MEMBERS[0]);
  if (span.status.message !== undefined) {
    w.copy(K_STATUS_MESSAGE);
    w.string(span.status.message);
  }
  if (span.sessionId !== undefined) {
    w.copy(K_SESSION_ID);
    w.string(span.sessionId);
  }
  if (span.userId !== undefined) {
    w.copy(K_USER_ID);
    w.string(span.userId);
  }
  if (span.project !== undefined) {
    w.copy(K_PROJECT);
    w.sameString(SAME_PROJECT, span.project);
  }
  w.copy(K_ATTRIBUTES);
  if (nested) w.plainValue(nestedShape(span.attributes));
  else w.attributes(span.attributes, w.keys.spanKeys);
  if (span.events !== undefined) {
    w.copy(K_EVENTS);
    writeEvents(w, span.events, times);
  }
  if (span.links !== undefined) {
    w.copy(K_LINKS);
    writeLinks(w, span.links);
  }
  if (span.references !== undefined) {
    w.copy(K_REFERENCES);
    writeReferences(w, span.references);
  }
  // Resource and scope are usually shared by every span of a request: written once, then copied.
  if (span.resource !== undefined || span.scope !== undefined) w.repeat(span.resource, span.scope, writeResourceAndScope);
  if (span.otlp !== undefined && hasOtlpMember(span.otlp)) {
    w.copy(K_OTLP);
    writeOtlpMembers(w, span.otlp);
    w.byte(0x7d);
  }
  w.byte(0x7d);
}

function writeEvents(w: JsonWriter, events: readonly SpanEvent[], times: TimeText): void {
  w.byte(0x5b);
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    w.copy(i > 0 ? K_EVENT_NEXT : K_EVENT_FIRST);
    w.sameString(SAME_EVENT_NAME, event.name);
    w.copy(K_TIMESTAMP);
    times.write(w, event.timeNs);
    w.copy(K_AFTER_TIME_ATTRIBUTES);
    w.attributes(event.attributes, w.keys.eventKeys);
    if (event.droppedAttributesCount !== undefined) {
      w.copy(K_EVENT_DROPPED);
      w.integerOrText(event.droppedAttributesCount);
      w.byte(0x7d);
    }
    w.byte(0x7d);
  }
  w.byte(0x5d);
}

function writeLinks(w: JsonWriter, links: readonly SpanLink[]): void {
  w.byte(0x5b);
  for (let i = 0; i < links.length; i++) {
    const link = links[i];
    w.raw(i > 0 ? ',{"trace_id":' : '{"trace_id":');
    w.string(link.traceId);
    w.copy(K_SPAN_ID);
    w.string(link.spanId);
    w.copy(K_ATTRIBUTES);
    w.attributes(link.attributes);
    if (link.traceState !== undefined || link.flags !== undefined || link.droppedAttributesCount !== undefined) {
      w.copy(K_OTLP);
      let first = true;
      if (link.traceState !== undefined) {
        w.copy(K_LINK_TRACE_STATE);
        w.string(link.traceState);
        first = false;
      }
      if (link.flags !== undefined) {
        w.raw(first ? '"flags":' : ',"flags":');
        w.integerOrText(link.flags);
        first = false;
      }
      if (link.droppedAttributesCount !== undefined) {
        w.raw(first ? '"dropped_attributes_count":' : ',"dropped_attributes_count":');
        w.integerOrText(link.droppedAttributesCount);
      }
      w.byte(0x7d);
    }
    w.byte(0x7d);
  }
  w.byte(0x5d);
}

function writeReferences(w: JsonWriter, references: readonly SpanReference[]): void {
  w.byte(0x5b);
  for (let i = 0; i < references.length; i++) {
    const reference = references[i];
    w.raw(i > 0 ? ',{' : '{');
    if (reference.id !== undefined) {
      w.copy(K_ID);
      w.string(reference.id);
      w.byte(0x2c);
    }
    if (reference.slug !== undefined) {
      w.copy(K_SLUG);
      w.string(reference.slug);
      w.byte(0x2c);
    }
    if (reference.version !== undefined) {
      w.copy(K_VERSION);
      w.string(reference.version);
      w.byte(0x2c);
    }
    w.copy(K_FIRST_ATTRIBUTES);
    w.attributes(reference.attributes);
    w.byte(0x7d);
  }
  w.byte(0x5d);
}

/** `,"resource":{...},"scope":{...}` of a span, either part when present. */
function writeResourceAndScope(w: JsonWriter, resource: Attributes | undefined, scope: SpanScope | undefined): void {
  if (resource !== undefined) {
    w.copy(K_RESOURCE);
    w.attributes(resource);
  }
  if (scope !== undefined) {
    w.copy(K_SCOPE);
    writeScope(w, scope);
  }
}

function writeScope(w: JsonWriter, scope: SpanScope): void {
  w.copy(K_SCOPE_NAME);
  w.string(scope.name);
  if (scope.version !== undefined) {
    w.copy(K_SCOPE_VERSION);
    w.string(scope.version);
  }
  if (scope.attributes !== undefined) {
    w.copy(K_ATTRIBUTES);
    w.attributes(scope.attributes);
  }
  w.byte(0x7d);
}

function hasOtlpMember(otlp: OtlpExtras): boolean {
  return otlp.traceState !== undefined || otlp.flags !== undefined || otlp.droppedAttributesCount !== undefined
    || otlp.droppedEventsCount !== undefined || otlp.droppedLinksCount !== undefined
    || otlp.resourceSchemaUrl !== undefined || otlp.scopeSchemaUrl !== undefined;
}

/** The members of the span-level `otlp` object (without braces); at least one is set. */
function writeOtlpMembers(w: JsonWriter, otlp: OtlpExtras): void {
  let sep = '"';
  if (otlp.traceState !== undefined) {
    w.raw(sep + 'trace_state":');
    w.string(otlp.traceState);
    sep = ',"';
  }
  if (otlp.flags !== undefined) {
    w.raw(sep + 'flags":');
    w.integerOrText(otlp.flags);
    sep = ',"';
  }
  if (otlp.droppedAttributesCount !== undefined) {
    w.raw(sep + 'dropped_attributes_count":');
    w.integerOrText(otlp.droppedAttributesCount);
    sep = ',"';
  }
  if (otlp.droppedEventsCount !== undefined) {
    w.raw(sep + 'dropped_events_count":');
    w.integerOrText(otlp.droppedEventsCount);
    sep = ',"';
  }
  if (otlp.droppedLinksCount !== undefined) {
    w.raw(sep + 'dropped_links_count":');
    w.integerOrText(otlp.droppedLinksCount);
    sep = ',"';
  }
  if (otlp.resourceSchemaUrl !== undefined) {
    w.raw(sep + 'resource_schema_url":');
    w.string(otlp.resourceSchemaUrl);
    sep = ',"';
  }
  if (otlp.scopeSchemaUrl !== undefined) {
    w.raw(sep + 'scope_schema_url":');
    w.string(otlp.scopeSchemaUrl);
  }
}
