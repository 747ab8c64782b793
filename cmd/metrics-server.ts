// `service.telemetry.metrics.address`: the daemon's metrics in the Prometheus text format at
// `GET /metrics`, on the receivers' own listener (receivers/common/listener.ts). Each scrape reads the
// counters and asks the gauges (streams, backlogs, memory) for their values then; nothing runs between scrapes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../pipeline/log.ts';
import type { ServiceMetrics } from '../pipeline/telemetry/metrics.ts';
import { HttpListener } from '../receivers/common/listener.ts';
import { READ_TIMEOUT_DEFAULTS } from '../receivers/common/read-timeouts.ts';
import { sendReply, type HttpReply } from '../receivers/common/reply-writer.ts';

export const METRICS_PATH = '/metrics';

const TEXT_TYPE = 'text/plain; charset=utf-8';

export class MetricsServer {
  readonly #listener: HttpListener;
  readonly #metrics: ServiceMetrics;
  readonly #logger: Logger;

  constructor(address: string, metrics: ServiceMetrics, logger: Logger) {
    this.#metrics = metrics;
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
    return this.#listener.shutdown();
  }

  /** The answer to one request: the metrics at GET /metrics, 404 off that path, 405 to other methods. */
  async reply(method: string | undefined, url: string | undefined): Promise<HttpReply> {
    const path = (url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH) return { status: 404, body: `no such path: the metrics are at ${METRICS_PATH}\n` };
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, body: `method ${method} not allowed: use GET\n`, headers: { allow: 'GET, HEAD' } };
    }
    return { status: 200, body: await this.#metrics.text(), headers: { 'content-type': this.#metrics.contentType, 'cache-control': 'no-store' } };
  }

  async #serve(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    let reply: HttpReply;
    try {
      reply = await this.reply(incoming.method, incoming.url);
    } catch (error) {
      this.#logger.error('collecting the metrics failed', { error });
      reply = { status: 500, body: 'collecting the metrics failed\n' };
    }
    sendReply(incoming, outgoing, reply, { contentType: TEXT_TYPE, closing: false, withLength: true }, this.#logger);
  }
}
