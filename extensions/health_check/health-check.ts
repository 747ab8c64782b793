// The `health_check` extension: liveness and readiness probes over HTTP (GET /health/live,
// GET /health/ready), on the receivers' own listener (receivers/common/listener.ts). Each answer is
// computed when asked from the daemon's components; nothing runs between probes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Extension, ExtensionContext } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import { HttpListener } from '../../receivers/common/listener.ts';
import { READ_TIMEOUT_DEFAULTS } from '../../receivers/common/read-timeouts.ts';
import { sendReply, type HttpReply } from '../../receivers/common/reply-writer.ts';
import type { HealthCheckConfig } from './config.ts';
import { assess, type ReadinessRules } from './readiness.ts';

export const LIVE_PATH = '/health/live';
export const READY_PATH = '/health/ready';

const JSON_TYPE = 'application/json';
const NO_STORE = { 'cache-control': 'no-store' };

function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpReply {
  return { status, body: JSON.stringify(value), headers: { ...NO_STORE, ...headers } };
}

export class HealthCheckExtension implements Extension {
  readonly #listener: HttpListener;
  readonly #context: ExtensionContext;
  readonly #logger: Logger;
  readonly #rules: ReadinessRules;

  constructor(config: HealthCheckConfig, context: ExtensionContext) {
    this.#context = context;
    this.#logger = context.logger;
    this.#rules = { failureThresholdMs: config.exporter_failure_threshold, highWaterPercent: config.stream_high_water_percent };
    this.#listener = new HttpListener({
      endpoint: config.endpoint, tls: undefined, timeouts: READ_TIMEOUT_DEFAULTS, name: 'health_check extension',
      errorBody: (_status, message) => JSON.stringify({ detail: message }),
    }, (incoming, outgoing) => this.#handle(incoming, outgoing), context.logger);
  }

  start(): Promise<void> {
    return this.#listener.start();
  }

  endpoints(): string[] {
    const url = this.#listener.url();
    return url === undefined ? [] : [url];
  }

  shutdown(): Promise<void> {
    return this.#listener.shutdown();
  }

  /** The answer to one request: the report for both probes (the status code differs), 404 or 405 else. */
  reply(method: string | undefined, url: string | undefined): HttpReply {
    const path = (url ?? '/').split('?', 1)[0];
    if (path !== LIVE_PATH && path !== READY_PATH) {
      return json(404, { detail: `no such path: the probes are ${LIVE_PATH} and ${READY_PATH}` });
    }
    if (method !== 'GET' && method !== 'HEAD') return json(405, { detail: `method ${method} not allowed: use GET` }, { allow: 'GET, HEAD' });
    const report = assess(this.#context.status(), this.#rules, Date.now());
    return json(path === LIVE_PATH || report.ready ? 200 : 503, report);
  }

  #handle(incoming: IncomingMessage, outgoing: ServerResponse): void {
    const reply = this.reply(incoming.method, incoming.url);
    sendReply(incoming, outgoing, reply, { contentType: JSON_TYPE, closing: false, withLength: true }, this.#logger);
  }
}
