// The `otlp` exporter: OTLP/HTTP (protobuf or JSON) to another collector or the tracing backend. One
// export() call is one delivery attempt; the pipeline runner owns retries and dead letters.
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Exporter } from '../../pipeline/component.ts';
import { PermanentError, StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { ExportRequestEncoder, encodeExportRequestJson } from '../../codec/otlp/index.ts';
import type { Span } from '../../model/span.ts';
import { tracesUrl, type OtlpExporterConfig } from './config.ts';
import { sendRequest } from './send.ts';

const gzip = promisify(gzipCallback);

export interface OtlpExporterStats {
  requests: number;
  /** Spans the peer reported as rejected in partial_success. */
  rejectedSpans: number;
}

/** The spans grouped by project, in order of first appearance; one group (the array itself) when all share one. */
function byProject(spans: Span[]): Span[][] {
  const first = spans.length > 0 ? spans[0].project : undefined;
  let i = 1;
  while (i < spans.length && spans[i].project === first) i++;
  if (i === spans.length) return [spans];
  const groups = new Map<string | undefined, Span[]>();
  for (const span of spans) {
    const group = groups.get(span.project);
    if (group === undefined) groups.set(span.project, [span]);
    else group.push(span);
  }
  return [...groups.values()];
}

export class OtlpExporter implements Exporter {
  readonly #config: OtlpExporterConfig;
  readonly #logger: Logger;
  readonly #url: string | undefined;
  readonly #headers: Record<string, string>;
  /** `#headers` with a project's `headers_by_project` over them. */
  readonly #projectHeaders = new Map<string, Record<string, string>>();
  readonly #encoder = new ExportRequestEncoder();
  readonly stats: OtlpExporterStats = { requests: 0, rejectedSpans: 0 };

  constructor(config: OtlpExporterConfig, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#url = tracesUrl(config.endpoint);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(config.headers ?? {})) headers[k.toLowerCase()] = v;
    // The body's own headers win over configured ones: they describe what is actually sent.
    headers['content-type'] = config.encoding === 'json' ? 'application/json' : 'application/x-protobuf';
    if (config.compression === 'gzip') headers['content-encoding'] = 'gzip';
    else delete headers['content-encoding'];
    headers['user-agent'] ??= 'tracehop';
    this.#headers = headers;
    for (const [project, extra] of Object.entries(config.headers_by_project ?? {})) {
      const merged = { ...headers };
      for (const [k, v] of Object.entries(extra)) merged[k.toLowerCase()] = v;
      this.#projectHeaders.set(project, merged);
    }
  }

  /** The URL requests go to. */
  url(): string | undefined {
    return this.#url;
  }

  async start(): Promise<void> {
    if (this.#url === undefined) {
      throw new StartupError(`otlp exporter: endpoint ${JSON.stringify(this.#config.endpoint)} is not an http(s) URL`);
    }
  }

  /**
   * Sends the spans in requests of at most max_request_spans. A retryable failure throws at once (the
   * whole batch is retried, so requests already delivered may be delivered twice: at least once). A
   * permanent failure of one request does not stop the others; the spans of the failed ones are named
   * in the PermanentError, the rest count as delivered.
   */
  async export(spans: Span[]): Promise<void> {
    const url = this.#url;
    if (url === undefined) throw new PermanentError('otlp exporter has no valid endpoint');
    const max = this.#config.max_request_spans;
    let failed: Span[] | undefined;
    let firstFailure: PermanentError | undefined;
    // A request holds the spans of one project only, so each goes out under its project's headers.
    for (const group of byProject(spans)) {
      const headers = (group[0].project !== undefined && this.#projectHeaders.get(group[0].project)) || this.#headers;
      for (let start = 0; start < group.length; start += max) {
        const chunk = group.length <= max ? group : group.slice(start, start + max);
        try {
          await this.#send(url, chunk, headers);
        } catch (error) {
          if (!(error instanceof PermanentError)) throw error;
          firstFailure ??= error;
          (failed ??= []).push(...chunk);
          this.#logger.error('otlp exporter: request rejected permanently', { error: error.message, spans: chunk.length });
        }
      }
    }
    if (firstFailure !== undefined && failed !== undefined) {
      throw new PermanentError(firstFailure.message, { cause: firstFailure, spans: failed.length === spans.length ? undefined : failed });
    }
  }

  async #send(url: string, spans: Span[], headers: Record<string, string>): Promise<void> {
    const encoded = this.#config.encoding === 'json'
      ? Buffer.from(encodeExportRequestJson(spans), 'utf8')
      : this.#encoder.encode(spans);
    const body = this.#config.compression === 'gzip' ? await gzip(encoded) : encoded;
    this.stats.requests++;
    const partial = await sendRequest({
      url, body, headers, timeoutMs: this.#config.timeout, json: this.#config.encoding === 'json',
    });
    if (partial !== undefined && (partial.rejectedSpans > 0 || partial.errorMessage !== '')) {
      // Not retried (the OTLP spec: the peer will not accept them on a retry either); logged and counted.
      this.stats.rejectedSpans += partial.rejectedSpans;
      this.#logger.warn('otlp exporter: peer rejected some spans', {
        rejected_spans: partial.rejectedSpans, error_message: partial.errorMessage, sent: spans.length,
      });
    }
  }

  async shutdown(): Promise<void> {
    // Nothing is buffered: every export() call finishes its own requests.
  }
}
