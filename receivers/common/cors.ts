// Cross-origin requests (CORS) for both HTTP receivers, in the shape of the Collector's `cors` setting,
// so that a browser SDK can send spans to the tracing API or to OTLP/HTTP. Off unless `allowed_origins`
// lists at least one origin.
//
// A preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is answered here, before
// routing and authentication (a browser sends no credentials with it): 204, and the allow headers only
// when the origin, the method and every requested header are allowed. An actual request from an allowed
// origin gets `Access-Control-Allow-Origin` on whatever answer it gets.
import type { IncomingMessage } from 'node:http';
import type { JsonSchema } from '../../pipeline/component.ts';
import { integer, object } from '../../pipeline/schema.ts';
import type { HttpReply } from './reply-writer.ts';

export interface CorsConfig {
  /** Origins, exactly (`https://app.example.com`), with one `*` wildcard (`https://*.example.com`), or `*`. */
  allowed_origins: string[];
  /** Request headers allowed besides the ones every request may send; `*` allows any. */
  allowed_headers: string[];
  /** Seconds a browser may cache a preflight answer; 0 sends no Access-Control-Max-Age. */
  max_age: number;
}

export const corsSchema: JsonSchema = object({
  allowed_origins: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
  allowed_headers: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
  max_age: integer(0),
});

export const NO_CORS: CorsConfig = { allowed_origins: [], allowed_headers: [], max_age: 0 };

/** Headers a client sends to either receiver: content type and encoding, and the credentials of `api_keys`. */
const ALWAYS_ALLOWED_HEADERS = ['accept', 'content-type', 'content-encoding', 'x-requested-with', 'authorization'];
const ALLOWED_METHODS = new Set(['GET', 'POST']);
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/** One origin pattern: the text before and after its wildcard (none: `suffix` is undefined). */
interface OriginPattern {
  prefix: string;
  suffix: string | undefined;
}

export class Cors {
  readonly #any: boolean;
  readonly #patterns: OriginPattern[];
  readonly #anyHeader: boolean;
  readonly #headers: Set<string>;
  readonly #maxAge: string | undefined;

  constructor(config: CorsConfig = NO_CORS) {
    this.#any = config.allowed_origins.includes('*');
    this.#patterns = config.allowed_origins.filter((o) => o !== '*').map((origin) => {
      const lower = origin.toLowerCase();
      const star = lower.indexOf('*');
      return star < 0 ? { prefix: lower, suffix: undefined } : { prefix: lower.slice(0, star), suffix: lower.slice(star + 1) };
    });
    this.#anyHeader = config.allowed_headers.includes('*');
    this.#headers = new Set([...ALWAYS_ALLOWED_HEADERS, ...config.allowed_headers.map((h) => h.toLowerCase())]);
    this.#maxAge = config.max_age > 0 ? String(config.max_age) : undefined;
  }

  get enabled(): boolean {
    return this.#any || this.#patterns.length > 0;
  }

  #allows(origin: string): boolean {
    if (this.#any) return true;
    const lower = origin.toLowerCase();
    for (const p of this.#patterns) {
      if (p.suffix === undefined ? lower === p.prefix
        : lower.length >= p.prefix.length + p.suffix.length && lower.startsWith(p.prefix) && lower.endsWith(p.suffix)) return true;
    }
    return false;
  }

  /** `Access-Control-Allow-Origin`'s value for an allowed origin. */
  #allowOrigin(origin: string): string {
    return this.#any ? '*' : origin;
  }

  /** The answer to a preflight, or undefined when the request is not one (or CORS is off). */
  preflight(incoming: IncomingMessage): HttpReply | undefined {
    if (!this.enabled || incoming.method !== 'OPTIONS') return undefined;
    const origin = incoming.headers.origin;
    const method = incoming.headers['access-control-request-method'];
    if (origin === undefined || typeof method !== 'string') return undefined;
    const headers: Record<string, string> = { vary: PREFLIGHT_VARY };
    const requested = incoming.headers['access-control-request-headers'];
    const names = requested === undefined ? [] : requested.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
    const headersAllowed = this.#anyHeader || names.every((h) => this.#headers.has(h));
    if (this.#allows(origin) && ALLOWED_METHODS.has(method.toUpperCase()) && headersAllowed) {
      headers['access-control-allow-origin'] = this.#allowOrigin(origin);
      headers['access-control-allow-methods'] = method.toUpperCase();
      if (names.length > 0) headers['access-control-allow-headers'] = names.join(', ');
      if (this.#maxAge !== undefined) headers['access-control-max-age'] = this.#maxAge;
    }
    return { status: 204, body: '', headers };
  }

  /** `reply` with the CORS headers an actual request from an allowed origin gets. */
  answer(incoming: IncomingMessage, reply: HttpReply): HttpReply {
    const origin = incoming.headers.origin;
    if (!this.enabled || origin === undefined) return reply;
    const headers: Record<string, string> = { ...reply.headers, vary: 'Origin' };
    if (this.#allows(origin)) headers['access-control-allow-origin'] = this.#allowOrigin(origin);
    return { ...reply, headers };
  }
}
