// Canonical spans -> ExportTraceServiceRequest (protobuf), grouped by resource and scope. OTLP-only
// fields carried in `span.otlp` and on events and links are written back (otlp.md "faithful forward").
import type { AttrValue, Attributes, Span, SpanScope } from '../../model/span.ts';
import { SizeGuess } from '../bytes/output-buffer.ts';
import { KeyMemory, Piece, PieceCache, PiecePositions } from '../bytes/piece.ts';
import { agExtras, groupSpans, type ResourceGroup, type ScopeGroup } from './group.ts';
import { ProtoWriter, varintBytes } from './proto-writer.ts';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './proto-reader.ts';

const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

/** Receives the requests `ExportRequestEncoder.encodeRequests` cuts, in order. */
export interface RequestSink {
  /**
   * One ExportTraceServiceRequest holding `order[start, end)`. `order` is the spans in the order they were
   * written (grouped by resource, then scope); it keeps growing, so read the range now. `bytes` is a view
   * into the writer that is never written again.
   */
  request(bytes: Uint8Array, order: Span[], start: number, end: number): void;
  /** A span that alone encodes to more than the limit (`bytes`, framing included): in no request. */
  tooLarge(span: Span, bytes: number): void;
}

/**
 * Encodes spans as ExportTraceServiceRequests. What it learns from request to request (the buffer size
 * a request needs, the encoded attribute keys) lives here, not in the module: each exporter owns one, so
 * two pipelines or a worker thread never share or race on it. A one-off encoding may use a fresh one.
 */
export class ExportRequestEncoder {
  /**
   * The next request's buffer size, from the bytes per span the last one needed. A fixed 512 made every
   * batch of the benchmark's ~720-byte spans grow once by copying, and a batch of ~10 KB LLM-call spans
   * five times (docs/performance.md, round 0470).
   */
  private readonly requestSize = new SizeGuess(512);
  private readonly memo = new EncodeMemo();

  /** Encodes spans as one ExportTraceServiceRequest. */
  encode(spans: Span[]): Uint8Array {
    const w = new ProtoWriter(Math.max(1024, this.requestSize.bytesFor(spans.length)));
    let out: Uint8Array = w.finish();
    writeRequests(w, this.memo, spans, Infinity, {
      request: (bytes) => {
        out = bytes;
      },
      tooLarge: () => {},
    });
    this.requestSize.learn(out.length, spans.length);
    return out;
  }

  /**
   * Encodes spans as consecutive ExportTraceServiceRequests of at most `limit` bytes each, appended to
   * `w`, in one pass: each span is encoded once. When a span takes the request in progress over the
   * limit, the request is closed before it and the span's bytes move to the next one. Each request is
   * byte for byte what `encode` makes of its spans. Spans are written grouped by resource and scope
   * (first appearance order), so a cut falls between groups' spans in that order.
   *
   * This replaced "encode the whole trace, and if too big encode it again in even parts" for the Kafka
   * exporter: on the benchmark's 2,000-span traces that encoded every span twice (docs/performance.md, round 0340).
   */
  encodeRequests(w: ProtoWriter, spans: Span[], limit: number, sink: RequestSink): void {
    writeRequests(w, this.memo, spans, limit, sink);
  }
}

/**
 * What one encoder remembers from span to span, so that the bytes that repeat are copied, not encoded
 * again: attribute keys (by position first, as spans of one instrumentation carry the same keys in the
 * same order), whole span and event attributes that repeat (RepeatedPairs), and the trace and parent id
 * fields, which most spans share with the span before (the spans of a Kafka message are one trace's;
 * siblings share their parent). On the benchmark's spans this took ~22% off the encoding
 * (docs/performance.md, "The Kafka exporter path"). Bounded: 64 positions per kind of map.
 */
class EncodeMemo {
  /** Encoded key fields (`KeyValue.key`, tag included): the same keys come in every span. */
  readonly keys = new KeyMemory();
  /** Span and event attributes that repeat at their position, whole (KeyValue tag and all). */
  readonly spanPairs = new RepeatedPairs();
  readonly eventPairs = new RepeatedPairs();
  readonly traceId = new IdField(16);
  readonly parentId = new IdField(8);
}

/** Positions of an attribute map whose repeated pairs a RepeatedPairs remembers. */
const PAIR_POSITIONS = 64;

/**
 * For each position of one kind of attribute map: the pair (key and scalar value) written there last,
 * and one pair kept whole as its encoded KeyValue, once it came twice in a row. Spans of one
 * instrumentation repeat many pairs span after span (span types, model and operation names, roles, fixed
 * counts): those are then one copy instead of a key, a value and two lengths encoded again. A kept pair
 * is replaced only by another that comes twice in a row, so a value that changes every span (ids,
 * content) costs comparisons and no memory, and one that alternates keeps the more frequent kept.
 */
class RepeatedPairs {
  readonly lastKeys: string[] = new Array<string>(PAIR_POSITIONS).fill('');
  readonly lastValues: AttrValue[] = new Array<AttrValue>(PAIR_POSITIONS).fill(null);
  readonly keptKeys: string[] = new Array<string>(PAIR_POSITIONS).fill('');
  readonly keptValues: AttrValue[] = new Array<AttrValue>(PAIR_POSITIONS).fill(null);
  readonly kept: Array<Piece | undefined> = new Array<Piece | undefined>(PAIR_POSITIONS).fill(undefined);
}

/** Longest string value a RepeatedPairs compares and keeps (longer ones are content, not labels). */
const PAIR_VALUE_CHARS = 64;
/** Longest key a RepeatedPairs keeps a pair of (as the key cache: a client's huge keys are not kept). */
const PAIR_KEY_CHARS = 128;

/** A bytes field of an id (length and bytes) as written last, with the hex it came from. */
class IdField {
  hex = '';
  readonly piece: Piece;
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
    this.piece = new Piece(size + 1);
  }

  /** Writes the id `hex` (a bytes field's length and content): a copy when it is the last one's. */
  write(w: ProtoWriter, hex: string): void {
    // '' is the starting value, not an id written: an empty id is written as one (a zero length).
    if (hex === this.hex && hex !== '') {
      w.copy(this.piece);
      return;
    }
    const start = w.pos;
    w.hexBytes(hex);
    if (w.pos - start !== this.size + 1) return;
    this.hex = hex;
    for (let i = 0; i <= this.size; i++) this.piece.set(i, w.buf[start + i]);
  }
}

function writeRequests(w: ProtoWriter, memo: EncodeMemo, spans: Span[], limit: number, sink: RequestSink): void {
  const groups = groupSpans(spans);
  const order: Span[] = [];
  let requestStart = w.pos;
  let first = 0; // index in `order` of the request's first span
  // The open ResourceSpans and ScopeSpans of the request in progress: where each starts (its tag), its
  // length mark (-1: not open), and how many spans it holds so far.
  let rsStart = 0;
  let rsMark = -1;
  let rsSpans = 0;
  let ssStart = 0;
  let ssMark = -1;
  let ssSpans = 0;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    const rsTail = schemaUrlBytes(group.schemaUrl);
    for (let s = 0; s < group.scopes.length; s++) {
      const sg = group.scopes[s];
      const ssTail = schemaUrlBytes(sg.schemaUrl);
      const scopeSpans = sg.spans;
      for (let i = 0; i < scopeSpans.length; i++) {
        const span = scopeSpans[i];
        if (rsMark < 0) {
          rsStart = w.pos;
          rsMark = openResourceSpans(w, memo, group);
          rsSpans = 0;
        }
        if (ssMark < 0) {
          ssStart = w.pos;
          ssMark = openScopeSpans(w, memo, sg);
          ssSpans = 0;
        }
        const spanStart = w.pos;
        writeSpan(w, memo, span);
        let size = closedSize(w.pos, requestStart, rsMark, rsTail, ssMark, ssTail);
        if (size <= limit) {
          order.push(span);
          rsSpans++;
          ssSpans++;
          continue;
        }
        if (order.length > first) {
          // Close the request before this span and start the next one with it. Its bytes are copied out
          // (rare: once per request cut) because closing the request writes where they are. A frame this
          // span opened holds nothing else and is dropped, as a whole-request encoding would not have it.
          const spanBytes = Buffer.from(w.buf.subarray(spanStart, w.pos));
          w.pos = spanStart;
          if (ssSpans > 0) closeGroup(w, ssMark, sg.schemaUrl);
          else w.pos = ssStart;
          if (rsSpans > 0) closeGroup(w, rsMark, group.schemaUrl);
          else w.pos = rsStart;
          sink.request(w.buf.subarray(requestStart, w.pos), order, first, order.length);
          requestStart = w.pos;
          first = order.length;
          rsStart = w.pos;
          rsMark = openResourceSpans(w, memo, group);
          ssStart = w.pos;
          ssMark = openScopeSpans(w, memo, sg);
          w.raw(spanBytes);
          size = closedSize(w.pos, requestStart, rsMark, rsTail, ssMark, ssTail);
          if (size <= limit) {
            order.push(span);
            rsSpans = 1;
            ssSpans = 1;
            continue;
          }
        }
        // Too large even alone (the request holds no other span): left out, and the request starts afresh.
        sink.tooLarge(span, size);
        w.pos = requestStart;
        rsMark = -1;
        ssMark = -1;
        order.push(span);
        first = order.length;
      }
      if (ssMark >= 0) {
        closeGroup(w, ssMark, sg.schemaUrl);
        ssMark = -1;
      }
    }
    if (rsMark >= 0) {
      closeGroup(w, rsMark, group.schemaUrl);
      rsMark = -1;
    }
  }
  if (order.length > first) sink.request(w.buf.subarray(requestStart, w.pos), order, first, order.length);
}

/** Bytes of a schema_url field (tag, length, text); 0 when empty, as it is then not written. */
function schemaUrlBytes(url: string): number {
  if (url === '') return 0;
  const n = Buffer.byteLength(url, 'utf8');
  return 1 + varintBytes(n) + n;
}

/**
 * Width of the length placeholders of ResourceSpans and ScopeSpans: they hold a batch's spans, up to
 * 2 MiB in 3 bytes (a Kafka message is 1 MB by default), so closing them moves nothing.
 */
const GROUP_WIDTH = 3;
/** Width of a span's length placeholder: spans are nearly always 128 bytes to 16 KiB (an LLM call's ~10 KB too). */
const SPAN_WIDTH = 2;

/**
 * Size of the request in progress once its open ScopeSpans and ResourceSpans are closed: their schema
 * urls appended, and their length placeholders resized to the varints their lengths need.
 */
function closedSize(pos: number, requestStart: number, rsMark: number, rsTail: number, ssMark: number, ssTail: number): number {
  let end = pos + ssTail;
  end += varintBytes(end - ssMark - GROUP_WIDTH) - GROUP_WIDTH;
  end += rsTail;
  end += varintBytes(end - rsMark - GROUP_WIDTH) - GROUP_WIDTH;
  return end - requestStart;
}

function openResourceSpans(w: ProtoWriter, memo: EncodeMemo, group: ResourceGroup): number {
  w.tag(1, WIRE_LEN); // resource_spans
  const mark = w.begin(GROUP_WIDTH);
  if (group.resource !== undefined) {
    w.tag(1, WIRE_LEN); // resource
    const m = w.begin();
    writeAttributes(w, memo, 1, group.resource, memo.keys.otherKeys);
    w.end(m);
  }
  return mark;
}

function openScopeSpans(w: ProtoWriter, memo: EncodeMemo, sg: ScopeGroup): number {
  w.tag(2, WIRE_LEN); // scope_spans
  const mark = w.begin(GROUP_WIDTH);
  if (sg.scope !== undefined) writeScope(w, memo, sg.scope);
  return mark;
}

/** Ends a ResourceSpans or ScopeSpans: both have `schema_url` as field 3, after their content. */
function closeGroup(w: ProtoWriter, mark: number, schemaUrl: string): void {
  if (schemaUrl !== '') {
    w.tag(3, WIRE_LEN);
    w.string(schemaUrl);
  }
  w.end(mark, GROUP_WIDTH);
}

function writeScope(w: ProtoWriter, memo: EncodeMemo, scope: SpanScope): void {
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
  if (scope.attributes !== undefined) writeAttributes(w, memo, 3, scope.attributes, memo.keys.otherKeys);
  w.end(m);
}

function writeSpan(w: ProtoWriter, memo: EncodeMemo, span: Span): void {
  w.tag(2, WIRE_LEN); // ScopeSpans.spans
  const m = w.begin(SPAN_WIDTH);
  const otlp = span.otlp;
  w.tag(1, WIRE_LEN);
  memo.traceId.write(w, span.traceId);
  w.tag(2, WIRE_LEN);
  w.hexBytes(span.spanId);
  if (otlp?.traceState) {
    w.tag(3, WIRE_LEN);
    w.string(otlp.traceState);
  }
  if (span.parentId !== undefined && span.parentId !== '') {
    w.tag(4, WIRE_LEN);
    memo.parentId.write(w, span.parentId);
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
  writeRepeatedAttributes(w, memo, 9, span.attributes, memo.keys.spanKeys, memo.spanPairs);
  const extras = agExtras(span);
  if (extras !== undefined) for (let i = 0; i < extras.length; i++) writeKeyValue(w, memo, 9, extras[i][0], extras[i][1], -1, memo.keys.otherKeys);
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
      writeRepeatedAttributes(w, memo, 3, e.attributes, memo.keys.eventKeys, memo.eventPairs);
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
      writeAttributes(w, memo, 4, l.attributes, memo.keys.otherKeys);
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
  w.end(m, SPAN_WIDTH);
}

// Attributes are written from the list's arrays: `for (const [k, v] of attrs)` allocates an entry array
// per attribute (~800 B for a span's dozen attributes, measured).
function writeAttributes(w: ProtoWriter, memo: EncodeMemo, field: number, attrs: Attributes, seen: PiecePositions): void {
  const { keyArray, valueArray } = attrs;
  for (let i = 0; i < keyArray.length; i++) writeKeyValue(w, memo, field, keyArray[i], valueArray[i], i, seen);
}

/** writeAttributes for a kind of map of its own (field and `pairs`), copying the pairs that repeat. */
function writeRepeatedAttributes(
  w: ProtoWriter, memo: EncodeMemo, field: number, attrs: Attributes, seen: PiecePositions, pairs: RepeatedPairs,
): void {
  const { keyArray, valueArray } = attrs;
  for (let i = 0; i < keyArray.length; i++) {
    const key = keyArray[i];
    const value = valueArray[i];
    if (i < PAIR_POSITIONS && key.length <= PAIR_KEY_CHARS && value !== null && typeof value !== 'object' && (typeof value !== 'string' || value.length <= PAIR_VALUE_CHARS)) {
      const kept = pairs.kept[i];
      if (kept !== undefined && pairs.keptKeys[i] === key && pairs.keptValues[i] === value) {
        w.copy(kept);
        pairs.lastKeys[i] = key;
        pairs.lastValues[i] = value;
        continue;
      }
      if (pairs.lastKeys[i] === key && pairs.lastValues[i] === value) {
        const start = w.pos;
        writeKeyValue(w, memo, field, key, value, i, seen);
        pairs.kept[i] = Piece.of(w.buf.subarray(start, w.pos));
        pairs.keptKeys[i] = key;
        pairs.keptValues[i] = value;
        continue;
      }
      pairs.lastKeys[i] = key;
      pairs.lastValues[i] = value;
    }
    writeKeyValue(w, memo, field, key, value, i, seen);
  }
}

/** `i`: the attribute's position in its map (-1: none), for the key lookup by position in `seen`. */
function writeKeyValue(w: ProtoWriter, memo: EncodeMemo, field: number, key: string, value: AttrValue, i: number, seen: PiecePositions): void {
  w.tag(field, WIRE_LEN);
  // A string of 128 characters or more makes the KeyValue and its AnyValue at least 128 bytes: their
  // placeholders are sized for that, so neither is moved when it ends.
  const width = typeof value === 'string' && value.length >= 128 ? 2 : 1;
  const m = w.begin(width);
  writeKey(w, memo.keys.pieces, key, i, seen);
  w.tag(2, WIRE_LEN);
  const vm = w.begin(width);
  writeAnyValueBody(w, value);
  w.end(vm, width);
  w.end(m, width);
}

/** A KeyValue's key field, copied from the encoder's cache of them. */
function writeKey(w: ProtoWriter, keys: PieceCache, key: string, i: number, seen: PiecePositions): void {
  const encoded = i < 0 ? keys.get(key) : keys.getAt(key, i, seen);
  if (encoded === undefined) {
    const start = w.pos;
    w.tag(1, WIRE_LEN);
    w.string(key);
    keys.remember(key, w.buf.subarray(start, w.pos));
    return;
  }
  w.copy(encoded);
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
