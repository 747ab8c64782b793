// The record payload since the THR2 records (docs/decisions/0231-disk-record-codec.md): the spans written
// field by field, in a fixed order, instead of as generic objects. A span's own fields, and those of its
// status, events, links, references, scope and OTLP extras, are written by position: no object keys and
// no walk over an object's keys per span. Each field's value, and every attribute list, is written with
// the generic codec's tags (codec.ts), so a value of any type the generic codec takes still round-trips.
//
// Layout: varint span count, then per span the SPAN_FIELDS order (model/span.ts). An optional struct
// (scope, otlp) is T_UNDEFINED or T_OBJECT followed by its fields; an optional list (events, links,
// references) is T_UNDEFINED or T_ARRAY, a varint count and its members' fields.
//
// A field added to Span (or to an event, link, reference, scope, status, OTLP extras) cannot be
// forgotten: each decoder below builds its object as a literal typed `Fields<T>`, every key of T
// required, so the build fails until the decoder reads the new field; the round-trip test's span is a
// `Required<Span>` with every field set, so the test fails until the encoder writes it in that place.
import type { Attributes, OtlpExtras, Span, SpanEvent, SpanLink, SpanReference, SpanScope, SpanStatus } from '../../model/span.ts';
import { spanStatus } from '../../model/span.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue } from '../../model/span.ts';
import { Decoder, T_ARRAY, T_OBJECT, T_UNDEFINED, ValueEncoder } from './codec.ts';

/** An attribute list with the keys of an earlier one of the record: varint list number, then values. */
const T_SHAPED_MAP = 20;
/** Key lists numbered per record, at most (later new lists are written whole). */
const MAX_SHAPES = 64;
/** Shorter lists are written whole: a number would save little. */
const MIN_SHAPE_KEYS = 2;

/** Every key of T, none optional: an object literal of this type names all of T's fields. */
type Fields<T> = { [K in keyof Required<T>]: T[K] };

// The status is written as its two fields and read back through spanStatus (shared objects), so no
// literal checks it: this does, failing the build when SpanStatus gains a field.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const STATUS_IS_CODE_AND_MESSAGE: SameKeys<keyof SpanStatus, 'code' | 'message'> = true;
void STATUS_IS_CODE_AND_MESSAGE;

/** Writes records of spans by position (appendSpans). */
export class SpanEncoder extends ValueEncoder {
  /** Key lists written in the current record, by number (T_SHAPED_MAP). */
  private readonly shapes: (readonly string[])[] = [];
  private readonly writeSpans = (spans: Span[]): void => {
    try {
      this.varint(spans.length);
      for (let i = 0; i < spans.length; i++) this.span(spans[i]);
    } finally {
      // Not kept past the record, written or refused: the lists belong to spans that go on to the
      // exporters (or back to a client that was refused).
      this.shapes.length = 0;
    }
  };

  /** Encodes `spans` after the bytes held, behind `headerBytes` unfilled bytes (ValueEncoder.appendBy). */
  appendSpans(spans: Span[], headerBytes: number): number {
    return this.appendBy(headerBytes, spans, this.writeSpans);
  }

  // The order of the writes is the order of the decoder's literals below.
  private span(s: Span): void {
    this.value(s.traceId);
    this.value(s.spanId);
    this.value(s.parentId);
    this.value(s.name);
    this.value(s.kind);
    this.value(s.startNs);
    this.value(s.endNs);
    this.value(s.status.code);
    this.value(s.status.message);
    this.attributes(s.attributes);
    this.events(s.events);
    this.links(s.links);
    this.references(s.references);
    this.attributes(s.resource);
    this.scope(s.scope);
    this.otlp(s.otlp);
    this.value(s.traceType);
    this.value(s.spanType);
    this.value(s.sessionId);
    this.value(s.userId);
    this.value(s.project);
  }

  /**
   * An attribute list, or T_UNDEFINED where an optional one is absent. A list with the same keys, in the
   * same order, as one written before in this record is written as T_SHAPED_MAP, that list's number and
   * the values alone: the spans of one request mostly repeat a few key lists.
   */
  private attributes(a: Attributes | undefined): void {
    if (a === undefined) {
      this.value(undefined);
      return;
    }
    const keys = a.keyArray;
    if (keys.length >= MIN_SHAPE_KEYS) {
      const id = this.shapeOf(keys);
      if (id >= 0) {
        this.ensure(6);
        this.buf[this.pos++] = T_SHAPED_MAP;
        this.varint(id);
        const values = a.valueArray;
        for (let i = 0; i < values.length; i++) this.attributeValue(values[i]);
        return;
      }
      // Numbered in the order written, as the decoder numbers them. Held, not copied: the record is
      // encoded in one synchronous call, and the table is emptied before the next.
      if (this.shapes.length < MAX_SHAPES) this.shapes.push(keys);
    }
    this.attributeList(a);
  }

  /** The number of an earlier list of this record with exactly `keys`, or -1. The newest first. */
  private shapeOf(keys: readonly string[]): number {
    const shapes = this.shapes;
    for (let s = shapes.length - 1; s >= 0; s--) {
      const known = shapes[s];
      if (known.length !== keys.length) continue;
      let i = 0;
      while (i < keys.length && known[i] === keys[i]) i++;
      if (i === keys.length) return s;
    }
    return -1;
  }

  /** T_UNDEFINED, or T_ARRAY and the count: false when absent (nothing more to write). */
  private listStart(list: readonly unknown[] | undefined): boolean {
    this.ensure(6);
    if (list === undefined) {
      this.buf[this.pos++] = T_UNDEFINED;
      return false;
    }
    this.buf[this.pos++] = T_ARRAY;
    this.varint(list.length);
    return true;
  }

  private events(events: SpanEvent[] | undefined): void {
    if (!this.listStart(events)) return;
    for (const e of events!) {
      this.value(e.name);
      this.value(e.timeNs);
      this.attributes(e.attributes);
      this.value(e.droppedAttributesCount);
    }
  }

  private links(links: SpanLink[] | undefined): void {
    if (!this.listStart(links)) return;
    for (const l of links!) {
      this.value(l.traceId);
      this.value(l.spanId);
      this.attributes(l.attributes);
      this.value(l.traceState);
      this.value(l.flags);
      this.value(l.droppedAttributesCount);
    }
  }

  private references(refs: SpanReference[] | undefined): void {
    if (!this.listStart(refs)) return;
    for (const r of refs!) {
      this.value(r.id);
      this.value(r.slug);
      this.value(r.version);
      this.attributes(r.attributes);
    }
  }

  /** T_UNDEFINED, or T_OBJECT: false when absent. */
  private structStart(o: object | undefined): boolean {
    this.ensure(1);
    this.buf[this.pos++] = o === undefined ? T_UNDEFINED : T_OBJECT;
    return o !== undefined;
  }

  private scope(scope: SpanScope | undefined): void {
    if (!this.structStart(scope)) return;
    this.value(scope!.name);
    this.value(scope!.version);
    this.attributes(scope!.attributes);
  }

  private otlp(x: OtlpExtras | undefined): void {
    if (!this.structStart(x)) return;
    this.value(x!.traceState);
    this.value(x!.flags);
    this.value(x!.droppedAttributesCount);
    this.value(x!.droppedEventsCount);
    this.value(x!.droppedLinksCount);
    this.value(x!.resourceSchemaUrl);
    this.value(x!.scopeSchemaUrl);
  }
}

/** Reads what SpanEncoder.appendSpans wrote. Values are checked by the record's CRC, not by type. */
class SpanDecoder extends Decoder {
  /** Key lists read in this record, numbered as the encoder numbered them. */
  private readonly shapes: (readonly string[])[] = [];

  /** What SpanEncoder.attributes wrote: T_UNDEFINED, T_MAP or T_SHAPED_MAP. */
  private attributes(): Attributes | undefined {
    if (this.buf[this.pos] === T_SHAPED_MAP) {
      this.pos++;
      const id = this.varint();
      if (id >= this.shapes.length) this.fail('unknown key list');
      const keys = this.shapes[id];
      // Pushed, not pre-sized: `new Array(n)` makes a holey array, which every later reader pays for.
      const values: AttrValue[] = [];
      for (let i = 0; i < keys.length; i++) values.push(this.value() as AttrValue);
      // Each list owns its arrays (a processor may add to one span's list): a copy of the keys per use.
      return AttributeList.adopt(keys.slice(), values);
    }
    const list = this.value();
    if (list === undefined) return undefined;
    if (!(list instanceof AttributeList)) return this.fail('expected an attribute list');
    // The table holds the first list's own key array, not a copy: nothing changes a list before the
    // record is decoded whole, and the table is dropped with the decoder.
    if (list.size >= MIN_SHAPE_KEYS && this.shapes.length < MAX_SHAPES) this.shapes.push(list.keyArray);
    return list;
  }

  spans(): Span[] {
    const n = this.varint();
    if (n > this.end - this.pos) this.fail('more spans than the record holds');
    const out = new Array<Span>(n);
    for (let i = 0; i < n; i++) out[i] = this.span();
    return out;
  }

  // Each literal lists its fields in the encoder's order (object literals evaluate in source order), and
  // the span's in SPAN_FIELDS order, so decoded spans share the hidden class of the receivers' (newSpan).
  private span(): Span {
    const span: Fields<Span> = {
      traceId: this.value() as string,
      spanId: this.value() as string,
      parentId: this.value() as string | undefined,
      name: this.value() as string,
      kind: this.value() as number,
      startNs: this.value() as bigint,
      endNs: this.value() as bigint,
      status: spanStatus(this.value() as number, this.value() as string | undefined),
      attributes: this.attributes() as Attributes,
      events: this.list(() => this.event()),
      links: this.list(() => this.link()),
      references: this.list(() => this.reference()),
      resource: this.attributes(),
      scope: this.struct(() => this.scope()),
      otlp: this.struct(() => this.otlp()),
      traceType: this.value() as string | undefined,
      spanType: this.value() as string | undefined,
      sessionId: this.value() as string | undefined,
      userId: this.value() as string | undefined,
      project: this.value() as string | undefined,
    };
    return span as Span;
  }

  private list<T>(member: () => T): T[] | undefined {
    const tag = this.buf[this.pos++];
    if (tag === T_UNDEFINED) return undefined;
    if (tag !== T_ARRAY) this.fail('expected a list');
    const n = this.varint();
    if (n > this.end - this.pos) this.fail('list longer than the record');
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = member();
    return out;
  }

  private struct<T>(fields: () => T): T | undefined {
    const tag = this.buf[this.pos++];
    if (tag === T_UNDEFINED) return undefined;
    if (tag !== T_OBJECT) this.fail('expected a struct');
    return fields();
  }

  private event(): SpanEvent {
    const e: Fields<SpanEvent> = {
      name: this.value() as string,
      timeNs: this.value() as bigint,
      attributes: this.attributes() as Attributes,
      droppedAttributesCount: this.value() as number | undefined,
    };
    return e as SpanEvent;
  }

  private link(): SpanLink {
    const l: Fields<SpanLink> = {
      traceId: this.value() as string,
      spanId: this.value() as string,
      attributes: this.attributes() as Attributes,
      traceState: this.value() as string | undefined,
      flags: this.value() as number | undefined,
      droppedAttributesCount: this.value() as number | undefined,
    };
    return l as SpanLink;
  }

  private reference(): SpanReference {
    const r: Fields<SpanReference> = {
      id: this.value() as string | undefined,
      slug: this.value() as string | undefined,
      version: this.value() as string | undefined,
      attributes: this.attributes() as Attributes,
    };
    return r as SpanReference;
  }

  private scope(): SpanScope {
    const s: Fields<SpanScope> = {
      name: this.value() as string,
      version: this.value() as string | undefined,
      attributes: this.attributes(),
    };
    return s as SpanScope;
  }

  private otlp(): OtlpExtras {
    const x: Fields<OtlpExtras> = {
      traceState: this.value() as string | undefined,
      flags: this.value() as number | undefined,
      droppedAttributesCount: this.value() as number | undefined,
      droppedEventsCount: this.value() as number | undefined,
      droppedLinksCount: this.value() as number | undefined,
      resourceSchemaUrl: this.value() as string | undefined,
      scopeSchemaUrl: this.value() as string | undefined,
    };
    return x;
  }
}

/** Decodes the spans of `buf[start, end)` written by SpanEncoder.appendSpans; RangeError when malformed. */
export function decodeSpans(buf: Buffer, start: number, end: number): Span[] {
  const d = new SpanDecoder(buf, start, end);
  const spans = d.spans();
  if (d.pos !== end) d.fail('trailing bytes');
  return spans;
}
