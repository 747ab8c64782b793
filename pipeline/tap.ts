// Taps (`tracehop tap`): the spans passing a pipeline, as they were received (before its processors) or
// as they leave them, streamed as span records to whoever watches. One Taps per graph.
//
// Nobody watching costs one comparison per request. A watcher whose connection cannot keep up loses tap
// output, never data: once its socket's buffer is over its limit, nothing more is written to it (the
// spans are only counted) until the buffer drains, and then the watcher is told how many it missed.
import { encodeSpanJson } from '../codec/record/index.ts';
import type { Span } from '../model/span.ts';

/** Where in a pipeline a tap watches. */
export type TapPoint = 'received' | 'processed';

export interface TapFilter {
  traceId?: string;
  name?: string;
  /** An attribute key and the value it must have (compared as text). */
  attribute?: { key: string; value: string };
}

/** Where a tap's lines go (an HTTP response). */
export interface TapSink {
  /** False when the line was buffered over the sink's limit: the writer should wait for `drain`. */
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

interface Subscription {
  filter: TapFilter;
  sink: TapSink;
  /** Spans not written while the sink was full. */
  missed: number;
  waiting: boolean;
}

function matches(span: Span, filter: TapFilter): boolean {
  if (filter.traceId !== undefined && span.traceId !== filter.traceId) return false;
  if (filter.name !== undefined && span.name !== filter.name) return false;
  if (filter.attribute !== undefined) {
    const v = span.attributes.get(filter.attribute.key);
    if (v === undefined || String(v) !== filter.attribute.value) return false;
  }
  return true;
}

export class Taps {
  /** Subscriptions by `<pipeline>\n<point>`. */
  readonly #subscriptions = new Map<string, Set<Subscription>>();
  /** How many subscriptions exist: the one number read per request when nobody watches. */
  #count = 0;
  #pipelines: ReadonlySet<string>;

  constructor(pipelines: Iterable<string>) {
    this.#pipelines = new Set(pipelines);
  }

  /** The pipelines that can be tapped from now on (a reload); a watcher of a removed one sees nothing more. */
  setPipelines(pipelines: Iterable<string>): void {
    this.#pipelines = new Set(pipelines);
  }

  /** The pipelines that can be tapped. */
  pipelines(): string[] {
    return [...this.#pipelines];
  }

  get watched(): boolean {
    return this.#count > 0;
  }

  /** Starts sending the matching spans at `point` of `pipeline` to `sink`; returns the unsubscribe. */
  subscribe(pipeline: string, point: TapPoint, filter: TapFilter, sink: TapSink): () => void {
    const key = `${pipeline}\n${point}`;
    let set = this.#subscriptions.get(key);
    if (set === undefined) this.#subscriptions.set(key, (set = new Set()));
    const subscription: Subscription = { filter, sink, missed: 0, waiting: false };
    set.add(subscription);
    this.#count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      set.delete(subscription);
      this.#count--;
    };
  }

  /** The spans of one request at `point` of `pipeline`, to its watchers. */
  offer(pipeline: string, point: TapPoint, spans: readonly Span[]): void {
    const set = this.#subscriptions.get(`${pipeline}\n${point}`);
    if (set === undefined || set.size === 0) return;
    for (const s of set) {
      let text = '';
      let n = 0;
      for (let i = 0; i < spans.length; i++) {
        if (!matches(spans[i], s.filter)) continue;
        n++;
        if (!s.waiting) text += encodeSpanJson(spans[i]) + '\n';
      }
      if (n === 0) continue;
      if (s.waiting) { s.missed += n; continue; }
      if (!s.sink.write(text)) {
        s.waiting = true;
        s.sink.once('drain', () => {
          s.waiting = false;
          if (s.missed > 0) {
            s.sink.write(JSON.stringify({ tap: 'missed', spans: s.missed }) + '\n');
            s.missed = 0;
          }
        });
      }
    }
  }
}
