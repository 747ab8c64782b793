// The members of a tracing API span and event that the request path reads (ingest-api.md §4.1, §4.2),
// as the body reader hands them over: one object shape for every span (and every event), each member as
// JSON.parse gives it or undefined when absent.

/** Member names by id: their bytes (compared against the body) and, for escaped names, a lookup. */
export class MemberNames {
  readonly bytes: Uint8Array[];
  /** Ids by name length. */
  readonly byLength: number[][] = [];
  readonly #ids: Map<string, number>;

  constructor(names: readonly string[]) {
    this.bytes = names.map((name) => Buffer.from(name));
    this.#ids = new Map(names.map((name, id) => [name, id]));
    names.forEach((name, id) => (this.byLength[name.length] ??= []).push(id));
  }

  /** The id of `name`, or -1 for a name not listed. */
  idOf(name: string): number {
    return this.#ids.get(name) ?? -1;
  }
}

/** Span members by id: `SpanMembers.set`'s cases follow this order. */
export const SPAN_MEMBERS = new MemberNames([
  'trace_id', 'span_id', 'parent_id', 'span_name', 'span_kind', 'start_time', 'end_time', 'status_code',
  'status_message', 'attributes', 'events', 'session_id', 'user_id', 'span_type', 'trace_type', 'links',
  'references', 'resource', 'scope', 'otlp', 'spans',
]);

/** A span's members. The field names are the JSON names, so the span checks read this as they read any object. */
export class SpanMembers {
  static readonly ATTRIBUTES = SPAN_MEMBERS.idOf('attributes');
  static readonly EVENTS = SPAN_MEMBERS.idOf('events');
  static readonly SPANS = SPAN_MEMBERS.idOf('spans');

  trace_id: unknown = undefined;
  span_id: unknown = undefined;
  parent_id: unknown = undefined;
  span_name: unknown = undefined;
  span_kind: unknown = undefined;
  start_time: unknown = undefined;
  end_time: unknown = undefined;
  status_code: unknown = undefined;
  status_message: unknown = undefined;
  attributes: unknown = undefined;
  events: unknown = undefined;
  session_id: unknown = undefined;
  user_id: unknown = undefined;
  span_type: unknown = undefined;
  trace_type: unknown = undefined;
  links: unknown = undefined;
  references: unknown = undefined;
  resource: unknown = undefined;
  scope: unknown = undefined;
  otlp: unknown = undefined;
  /** Tree form: the node's children. */
  spans: unknown = undefined;

  /** Sets member `id` (its position in SPAN_MEMBERS: the cases below follow that list). */
  set(id: number, value: unknown): void {
    switch (id) {
      case 0: this.trace_id = value; break;
      case 1: this.span_id = value; break;
      case 2: this.parent_id = value; break;
      case 3: this.span_name = value; break;
      case 4: this.span_kind = value; break;
      case 5: this.start_time = value; break;
      case 6: this.end_time = value; break;
      case 7: this.status_code = value; break;
      case 8: this.status_message = value; break;
      case 9: this.attributes = value; break;
      case 10: this.events = value; break;
      case 11: this.session_id = value; break;
      case 12: this.user_id = value; break;
      case 13: this.span_type = value; break;
      case 14: this.trace_type = value; break;
      case 15: this.links = value; break;
      case 16: this.references = value; break;
      case 17: this.resource = value; break;
      case 18: this.scope = value; break;
      case 19: this.otlp = value; break;
      case 20: this.spans = value; break;
    }
  }
}


/** Event members by id: `EventMembers.set`'s cases follow this order. */
export const EVENT_MEMBERS = new MemberNames(['name', 'timestamp', 'attributes', 'otlp']);

/** An event's members. */
export class EventMembers {
  static readonly ATTRIBUTES = EVENT_MEMBERS.idOf('attributes');

  name: unknown = undefined;
  timestamp: unknown = undefined;
  attributes: unknown = undefined;
  otlp: unknown = undefined;

  /** Sets member `id` (its position in EVENT_MEMBERS). */
  set(id: number, value: unknown): void {
    switch (id) {
      case 0: this.name = value; break;
      case 1: this.timestamp = value; break;
      case 2: this.attributes = value; break;
      case 3: this.otlp = value; break;
    }
  }
}

