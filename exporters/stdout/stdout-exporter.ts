// The `stdout` exporter: a summary line per batch, or every span as a JSON record per line. Data goes
// to stdout, logs to stderr, so `tracehop run | jq` works. Backpressure is honoured: when the stream's
// buffer is full, export() waits for 'drain' before it resolves, so a slow consumer slows the pipeline
// (the ingest stream holds the rest) instead of growing memory.
import type { Writable } from 'node:stream';
import type { Exporter } from '../../pipeline/component.ts';
import { BatchLinesEncoder, type AttributesShape } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';

export interface StdoutExporterOptions {
  /** The exporter id, named in basic summaries. */
  id: string;
  verbosity: 'basic' | 'detailed';
  attributesShape: AttributesShape;
  /** process.stdout unless a test injects another stream. */
  out?: Writable;
}

export class StdoutExporter implements Exporter {
  private readonly options: StdoutExporterOptions;
  private readonly out: Writable;
  private readonly lines: BatchLinesEncoder;
  /** A closed stdout (EPIPE) emits 'error'; without a listener that would end the daemon. The failure
   *  itself reaches export() through the write callback. */
  private readonly ignoreStreamError = () => {};

  constructor(options: StdoutExporterOptions) {
    this.options = options;
    this.out = options.out ?? process.stdout;
    this.lines = new BatchLinesEncoder({ attributesShape: options.attributesShape });
  }

  async start(): Promise<void> {
    this.out.on('error', this.ignoreStreamError);
  }

  async export(spans: Span[]): Promise<void> {
    if (spans.length === 0) return;
    const text = this.options.verbosity === 'detailed'
      ? this.lines.encode(spans).toString('utf8')
      : summaryLine(this.options.id, spans);
    await writeRespectingBackpressure(this.out, text);
  }

  async shutdown(): Promise<void> {
    this.out.off('error', this.ignoreStreamError);
  }
}

/** `stdout: 12 spans, 3 traces`. */
export function summaryLine(id: string, spans: readonly Span[]): string {
  const traces = new Set<string>();
  for (let i = 0; i < spans.length; i++) traces.add(spans[i].traceId);
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${id}: ${s(spans.length, 'span')}, ${s(traces.size, 'trace')}\n`;
}

/**
 * Resolves once the stream took the text (its write callback) and, when write() returned false, once it
 * drained. A failed or destroyed stream calls the write callback with the error: export() then rejects,
 * which the pipeline counts as a failed attempt.
 */
function writeRespectingBackpressure(out: Writable, text: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let written = false;
    let drained = true;
    const onDrain = () => {
      drained = true;
      if (written) resolve();
    };
    const accepted = out.write(text, (err) => {
      if (err) {
        out.off('drain', onDrain);
        reject(err);
        return;
      }
      written = true;
      if (drained) resolve();
    });
    if (!accepted) {
      drained = false;
      out.once('drain', onDrain);
    }
  });
}
