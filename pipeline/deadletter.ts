// The dead-letter file of one exporter: spans that can never be delivered, one JSON line each with the
// reason, so nothing acknowledged disappears without a trace.
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { encodeSpanJson } from '../codec/record/index.ts';
import type { DeadLetterSink } from './runner.ts';
import type { Span } from '../model/span.ts';

export class DeadLetterFile implements DeadLetterSink {
  readonly path: string;
  private readonly exporterId: string;
  private ready: Promise<unknown> | undefined;
  count = 0;

  constructor(path: string, exporterId: string) {
    this.path = path;
    this.exporterId = exporterId;
  }

  async write(spans: Span[], reason: string): Promise<void> {
    this.ready ??= mkdir(dirname(this.path), { recursive: true });
    await this.ready;
    const at = new Date().toISOString();
    const head = `{"reason":${JSON.stringify(reason)},"exporter":${JSON.stringify(this.exporterId)},"at":"${at}","span":`;
    let text = '';
    for (const span of spans) text += head + encodeSpanJson(span) + '}\n';
    await appendFile(this.path, text);
    this.count += spans.length;
  }
}

/** `./data/dead-letters/<exporter id with / as _>.jsonl` (ARCHITECTURE.md). */
export function defaultDeadLetterPath(exporterId: string): string {
  return `./data/dead-letters/${exporterId.replaceAll('/', '_')}.jsonl`;
}
