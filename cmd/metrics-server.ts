// `service.telemetry.metrics.address`: the daemon's metrics in the Prometheus text format at
// `GET /metrics`, on the receivers' own listener (receivers/common/listener.ts). Each scrape reads the
// counters and asks the gauges (streams, backlogs, memory) for their values then; nothing runs between scrapes.
// Also `GET /tap`: the spans passing a pipeline, streamed as span records (`tracehop tap`, pipeline/tap.ts),
// and `POST /-/reload`: reloads the config and answers with the outcome (cmd/reload.ts), as SIGHUP does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../pipeline/log.ts';
import type { Taps, TapFilter } from '../pipeline/tap.ts';
import { HttpListener } from '../receivers/common/listener.ts';
import { READ_TIMEOUT_DEFAULTS } from '../receivers/common/read-timeouts.ts';
import { sendReply, type HttpReply } from '../receivers/common/reply-writer.ts';
import type { ReloadOutcome } from './reload.ts';

/** What `GET /tap` watches: the process's own Taps, or the primary's fan-out to its workers (workers/cluster-taps.ts). */
export type TapSource = Pick<Taps, 'pipelines' | 'subscribe'>;

/** What `GET /metrics` answers with: the daemon's ServiceMetrics, or the primary's sum of its workers'. */
export interface MetricsSource {
  readonly contentType: string;
  text(): Promise<string>;
}

export const METRICS_PATH = '/metrics';
export const TAP_PATH = '/tap';
export const RELOAD_PATH = '/-/reload';

/** The status of a reload's answer: 200 applied, 400 refused (an invalid config), 500 failed to start. */
const RELOAD_STATUS = { applied: 200, invalid: 400, failed: 500 } as const;

const TEXT_TYPE = 'text/plain; charset=utf-8';

export class MetricsServer {
  readonly #listener: HttpListener;
  readonly #metrics: MetricsSource;
  readonly #logger: Logger;

  readonly #taps: TapSource;
  readonly #reload: ((trigger: string) => Promise<ReloadOutcome>) | undefined;
  /** Open tap streams, ended at shutdown (they would otherwise hold the listener open). */
  readonly #tapping = new Set<ServerResponse>();

  /** `reload`: what `POST /-/reload` calls (absent: the path answers 404). */
  constructor(address: string, metrics: MetricsSource, taps: TapSource, logger: Logger, reload?: (trigger: string) => Promise<ReloadOutcome>) {
    this.#metrics = metrics;
    this.#taps = taps;
    this.#reload = reload;
    this.#logger = logger;
    this.#listener = new HttpListener({
      endpoint: address, tls: undefined, timeouts: READ_TIMEOUT_DEFAULTS, name: 'service.telemetry.metrics',
      errorBody: (_status, message) => message + '\n',
    }, (incoming, outgoing) => void this.#serve(incoming, outgoing), logger);
  }

  /** Binds; rejects with StartupError naming the key and the address (port in use...). */
  start(): Promise<void> {
    return this.#listener.start();
  }

  /** `http://127.0.0.1:8888` once listening. */
  url(): string | undefined {
    return this.#listener.url();
  }

  shutdown(): Promise<void> {
    for (const outgoing of this.#tapping) outgoing.end();
    return this.#listener.shutdown();
  }

  /** The answer to one request: the metrics at GET /metrics, 404 off that path, 405 to other methods. */
  async reply(method: string | undefined, url: string | undefined): Promise<HttpReply> {
    const path = (url ?? '/').split('?', 1)[0];
    if (path === TAP_PATH) return { status: 405, body: `method ${method} not allowed: use GET\n`, headers: { allow: 'GET' } };
    if (path === RELOAD_PATH && this.#reload !== undefined) {
      if (method !== 'POST') return { status: 405, body: `method ${method} not allowed: use POST\n`, headers: { allow: 'POST' } };
      const outcome = await this.#reload(`POST ${RELOAD_PATH}`);
      return { status: RELOAD_STATUS[outcome.result], body: JSON.stringify(outcome) + '\n', headers: { 'content-type': 'application/json' } };
    }
    if (path !== METRICS_PATH) return { status: 404, body: `no such path: the metrics are at ${METRICS_PATH}, the tap at ${TAP_PATH}\n` };
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, body: `method ${method} not allowed: use GET\n`, headers: { allow: 'GET, HEAD' } };
    }
    return { status: 200, body: await this.#metrics.text(), headers: { 'content-type': this.#metrics.contentType, 'cache-control': 'no-store' } };
  }

  async #serve(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    if ((incoming.url ?? '/').split('?', 1)[0] === TAP_PATH && incoming.method === 'GET') {
      const problem = this.#tap(incoming, outgoing);
      if (problem === undefined) return;
      sendReply(incoming, outgoing, problem, { contentType: TEXT_TYPE, closing: false, withLength: true }, this.#logger);
      return;
    }
    let reply: HttpReply;
    try {
      reply = await this.reply(incoming.method, incoming.url);
    } catch (error) {
      this.#logger.error('collecting the metrics failed', { error });
      reply = { status: 500, body: 'collecting the metrics failed\n' };
    }
    sendReply(incoming, outgoing, reply, { contentType: TEXT_TYPE, closing: false, withLength: true }, this.#logger);
  }

  /**
   * `GET /tap?pipeline=ID&point=received|processed&trace_id=&name=&attribute=key=value`: answers 200 and
   * streams one JSON line per matching span until the client goes away or the daemon stops; the first
   * line says what is watched. Returns the answer instead when the query is not usable.
   */
  #tap(incoming: IncomingMessage, outgoing: ServerResponse): HttpReply | undefined {
    const taps = this.#taps;
    const query = new URLSearchParams((incoming.url ?? '').split('?')[1] ?? '');
    const pipelines = taps.pipelines();
    const pipeline = query.get('pipeline') ?? (pipelines.length === 1 ? pipelines[0] : undefined);
    if (pipeline === undefined || !pipelines.includes(pipeline)) {
      return { status: 404, body: `pipeline: ${pipeline === undefined ? 'needed' : `no pipeline "${pipeline}"`} (pipelines: ${pipelines.join(', ')})\n` };
    }
    const point = query.get('point') ?? 'processed';
    if (point !== 'received' && point !== 'processed') return { status: 400, body: `point: "received" or "processed" (got "${point}")\n` };
    const filter: TapFilter = {};
    const traceId = query.get('trace_id');
    if (traceId) filter.traceId = traceId.toLowerCase();
    const name = query.get('name');
    if (name) filter.name = name;
    const attribute = query.get('attribute');
    if (attribute) {
      const eq = attribute.indexOf('=');
      if (eq <= 0) return { status: 400, body: `attribute: key=value (got "${attribute}")\n` };
      filter.attribute = { key: attribute.slice(0, eq), value: attribute.slice(eq + 1) };
    }
    outgoing.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    outgoing.write(JSON.stringify({ tap: 'watching', pipeline, point }) + '\n');
    const unsubscribe = taps.subscribe(pipeline, point, filter, outgoing);
    this.#tapping.add(outgoing);
    outgoing.once('close', () => {
      unsubscribe();
      this.#tapping.delete(outgoing);
    });
    return undefined;
  }
}
