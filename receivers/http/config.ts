// `receivers.http` (ingest-api.md §9): the tracing API listener and its limits.
import type { JsonSchema } from '../../pipeline/component.ts';
import { duration, endpoint, integer, object } from '../../pipeline/schema.ts';
import { corsSchema, type CorsConfig } from '../common/cors.ts';
import { tlsSchema, type TlsConfig } from '../common/tls.ts';
import { authSchema, type AuthSetting } from '../../pipeline/auth.ts';
import { readTimeoutProperties, type ReadTimeouts } from '../common/read-timeouts.ts';

export interface HttpReceiverConfig extends ReadTimeouts {
  /** `host:port`; port 0 picks a free port (tests). */
  endpoint: string;
  /** Bytes, applied to the raw body and again to the decompressed body. */
  max_request_body_size: number;
  /** JSON nesting depth; the top-level value is depth 1. */
  max_nesting_depth: number;
  /** Flat spans plus tree nodes, valid or not. */
  max_spans_per_request: number;
  /** JSON objects and arrays in one body, counted before they are built (also the OTLP route's limit). */
  max_values_per_request: number;
  /** Accepted keys, a shorthand for an `api_keys` extension without projects; empty: none. */
  api_keys: string[];
  /** The authenticator extension every request must pass (`{authenticator: api_keys}`). */
  auth?: AuthSetting;
  /** Milliseconds; sent as whole seconds (rounded up) in `Retry-After` on 429/503. */
  retry_after: number;
  /** Cross-origin requests from browsers; off while `allowed_origins` is empty. */
  cors: CorsConfig;
  /** HTTPS instead of HTTP (and mutual TLS with a client CA); absent: plain HTTP. */
  tls?: TlsConfig;
  /** The read routes (read-api.md §10). */
  read: ReadConfig;
}

export interface ReadConfig {
  /** Id of the `store` exporter serving reads; the config loader fills in the only one. Unset: reads 501. */
  store?: string;
  /** `limit` of a query that gives none. */
  default_limit: number;
  /** Largest `limit`. */
  max_limit: number;
  /** Milliseconds: the longest read. */
  query_timeout: number;
}

export const schema: JsonSchema = object({
  endpoint: endpoint('127.0.0.1:4319'),
  max_request_body_size: integer(20_971_520, 1),
  // The body reader recurses once per level: the maximum keeps it far from the call stack's end.
  max_nesting_depth: { ...integer(64, 1), maximum: 1000 },
  max_spans_per_request: integer(100_000, 1),
  max_values_per_request: integer(500_000, 1),
  api_keys: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
  retry_after: duration('1s'),
  cors: corsSchema,
  tls: tlsSchema,
  auth: authSchema,
  read: object({
    store: { type: 'string', minLength: 1 },
    default_limit: integer(100, 1),
    max_limit: integer(10_000, 1),
    query_timeout: duration('5s'),
  }),
  ...readTimeoutProperties,
});
