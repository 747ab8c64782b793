// Canonical spans -> ExportTraceServiceRequest (protobuf), grouped by resource and scope. OTLP-only
// fields carried in `span.otlp` and on events and links are written back (otlp.md "faithful forward").
import type { AttrValue, Attributes, Span, SpanScope } from '../span.ts';
import { agExtras, groupSpans } from './group.ts';
import { ProtoWriter } from './proto-writer.ts';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';

const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

/** Encodes spans as one ExportTraceServiceRequest. */
export function encodeExportRequest(spans: Span[]): Uint8Array {
  const w = new ProtoWriter(Math.max(1024, spans.length * 512));
  const groups = groupSpans(spans);
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    w.tag(1, WIRE_LEN); // resource_spans
    const rsMark = w.begin();
    if (group.resource !== undefined) {
      w.tag(1, WIRE_LEN); // resource
      const m = w.begin();
      writeAttributes(w, 1, group.resource);
      w.end(m);
    }
    for (let s = 0; s < group.scopes.length; s++) {
      const sg = group.scopes[s];
      w.tag(2, WIRE_LEN); // scope_spans
      const ssMark = w.begin();
      if (sg.scope !== undefined) writeScope(w, sg.scope);
      for (let i = 0; i < sg.spans.length; i++) writeSpan(w, sg.spans[i]);
      if (sg.schemaUrl !== '') {
        w.tag(3, WIRE_LEN);
        w.string(sg.schemaUrl);
      }
      w.end(ssMark);
    }
    if (group.schemaUrl !== '') {
      w.tag(3, WIRE_LEN);
      w.string(group.schemaUrl);
    }
    w.end(rsMark);
  }
  return w.finish();
}

function writeScope(w: ProtoWriter, scope: SpanScope): void {
  w.tag(1, WIRE_LEN);
  const m = w.begin();
  if (scope.name !== '') {
    w.tag(1, WIRE_LEN);
    w.string(scope.name);
  }
  if (scope.version !== undefined && scope.version !== '') {
    w.tag(2, WIRE_LEN);
    w.string(scope.version);
  }
  if (scope.attributes !== undefined) writeAttributes(w, 3, scope.attributes);
  w.end(m);
}

function writeSpan(w: ProtoWriter, span: Span): void {
  w.tag(2, WIRE_LEN); // ScopeSpans.spans
  const m = w.begin();
  const otlp = span.otlp;
  w.tag(1, WIRE_LEN);
  w.hexBytes(span.traceId);
  w.tag(2, WIRE_LEN);
  w.hexBytes(span.spanId);
  if (otlp?.traceState) {
    w.tag(3, WIRE_LEN);
    w.string(otlp.traceState);
  }
  if (span.parentId !== undefined && span.parentId !== '') {
    w.tag(4, WIRE_LEN);
    w.hexBytes(span.parentId);
  }
  if (span.name !== '') {
    w.tag(5, WIRE_LEN);
    w.string(span.name);
  }
  if (span.kind !== 0) {
    w.tag(6, WIRE_VARINT);
    w.int64(span.kind);
  }
  w.tag(7, WIRE_FIXED64);
  w.fixed64(span.startNs);
  w.tag(8, WIRE_FIXED64);
  w.fixed64(span.endNs);
  writeAttributes(w, 9, span.attributes);
  const extras = agExtras(span);
  if (extras !== undefined) for (let i = 0; i < extras.length; i++) writeKeyValue(w, 9, extras[i][0], extras[i][1]);
  if (otlp?.droppedAttributesCount) {
    w.tag(10, WIRE_VARINT);
    w.varint(otlp.droppedAttributesCount);
  }
  const events = span.events;
  if (events !== undefined) {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      w.tag(11, WIRE_LEN);
      const em = w.begin();
      w.tag(1, WIRE_FIXED64);
      w.fixed64(e.timeNs);
      if (e.name !== '') {
        w.tag(2, WIRE_LEN);
        w.string(e.name);
      }
      writeAttributes(w, 3, e.attributes);
      if (e.droppedAttributesCount) {
        w.tag(4, WIRE_VARINT);
        w.varint(e.droppedAttributesCount);
      }
      w.end(em);
    }
  }
  if (otlp?.droppedEventsCount) {
    w.tag(12, WIRE_VARINT);
    w.varint(otlp.droppedEventsCount);
  }
  const links = span.links;
  if (links !== undefined) {
    for (let i = 0; i < links.length; i++) {
      const l = links[i];
      w.tag(13, WIRE_LEN);
      const lm = w.begin();
      w.tag(1, WIRE_LEN);
      w.hexBytes(l.traceId);
      w.tag(2, WIRE_LEN);
      w.hexBytes(l.spanId);
      if (l.traceState) {
        w.tag(3, WIRE_LEN);
        w.string(l.traceState);
      }
      writeAttributes(w, 4, l.attributes);
      if (l.droppedAttributesCount) {
        w.tag(5, WIRE_VARINT);
        w.varint(l.droppedAttributesCount);
      }
      if (l.flags) {
        w.tag(6, WIRE_FIXED32);
        w.fixed32(l.flags);
      }
      w.end(lm);
    }
  }
  if (otlp?.droppedLinksCount) {
    w.tag(14, WIRE_VARINT);
    w.varint(otlp.droppedLinksCount);
  }
  const status = span.status;
  if (status.code !== 0 || (status.message !== undefined && status.message !== '')) {
    w.tag(15, WIRE_LEN);
    const sm = w.begin();
    if (status.message) {
      w.tag(2, WIRE_LEN);
      w.string(status.message);
    }
    if (status.code !== 0) {
      w.tag(3, WIRE_VARINT);
      w.int64(status.code);
    }
    w.end(sm);
  }
  if (otlp?.flags) {
    w.tag(16, WIRE_FIXED32);
    w.fixed32(otlp.flags);
  }
  w.end(m);
}

function writeAttributes(w: ProtoWriter, field: number, attrs: Attributes): void {
  for (const [k, v] of attrs) writeKeyValue(w, field, k, v);
}

function writeKeyValue(w: ProtoWriter, field: number, key: string, value: AttrValue): void {
  w.tag(field, WIRE_LEN);
  const m = w.begin();
  w.tag(1, WIRE_LEN);
  w.string(key);
  w.tag(2, WIRE_LEN);
  const vm = w.begin();
  writeAnyValueBody(w, value);
  w.end(vm);
  w.end(m);
}

/** The fields of an AnyValue (its tag and length are the caller's). null: no field (empty AnyValue). */
function writeAnyValueBody(w: ProtoWriter, v: AttrValue): void {
  switch (typeof v) {
    case 'string':
      w.tag(1, WIRE_LEN);
      w.string(v);
      return;
    case 'boolean':
      w.tag(2, WIRE_VARINT);
      w.varint(v ? 1 : 0);
      return;
    case 'number':
      // Integral numbers within int64 are ints (the documented loss: 2.0 comes back as 2).
      if (Number.isInteger(v) && v >= INT64_MIN && v < INT64_LIMIT) {
        w.tag(3, WIRE_VARINT);
        w.int64(v);
      } else {
        w.tag(4, WIRE_FIXED64);
        w.double(v);
      }
      return;
    case 'bigint':
      if (v >= -(2n ** 63n) && v < 2n ** 63n) {
        w.tag(3, WIRE_VARINT);
        w.int64(v);
      } else {
        w.tag(4, WIRE_FIXED64);
        w.double(Number(v));
      }
      return;
    case 'object':
      if (v === null) return;
      w.tag(5, WIRE_LEN);
      {
        const am = w.begin();
        for (let i = 0; i < v.length; i++) {
          w.tag(1, WIRE_LEN);
          const em = w.begin();
          writeAnyValueBody(w, v[i]);
          w.end(em);
        }
        w.end(am);
      }
      return;
  }
}
