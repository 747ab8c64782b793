// `receivers.otlp` (ARCHITECTURE.md config table, otlp.md). As in the Collector, a protocol is enabled by
// its key being present: `protocols: {http: {}, grpc: {}}` (YAML `http:` with no value counts too), so
// the protocol objects carry no schema default of their own.
import type { JsonSchema } from '../../pipeline/component.ts';
import { duration, endpoint, integer, object } from '../../pipeline/schema.ts';
import { corsSchema, NO_CORS, type CorsConfig } from '../common/cors.ts';
import { tlsSchema, type TlsConfig } from '../common/tls.ts';
import { authSchema, type AuthSetting } from '../../pipeline/auth.ts';
import { READ_TIMEOUT_DEFAULTS, readTimeoutProperties, type ReadTimeouts } from '../common/read-timeouts.ts';

export interface OtlpHttpProtocolConfig extends ReadTimeouts {
  /** `host:port`; port 0 picks a free port (tests). */
  endpoint: string;
  /** Bytes, for the raw body and again for the decompressed body: 413 when over. */
  max_request_body_size: number;
  /** Spans in one request, counted before they are decoded: 413 when over. */
  max_spans_per_request: number;
  /** Values in one request (protobuf: attributes, array and kvlist elements, events, links; JSON: objects and arrays): 413 when over. */
  max_values_per_request: number;
  /** Cross-origin requests from browsers; off while `allowed_origins` is empty. */
  cors: CorsConfig;
  /** HTTPS instead of HTTP; absent: plain HTTP. */
  tls?: TlsConfig;
  /** The authenticator extension every request must pass. */
  auth?: AuthSetting;
}

export interface OtlpGrpcProtocolConfig {
  endpoint: string;
  /** Set explicitly on the server: grpc-js's own default is 4 MiB. */
  max_recv_msg_size_mib: number;
  /** Spans in one request, counted before they are decoded: RESOURCE_EXHAUSTED when over. */
  max_spans_per_request: number;
  /** As for HTTP (protobuf): RESOURCE_EXHAUSTED when over. */
  max_values_per_request: number;
  /** Milliseconds from a call's start to the end of its request: DEADLINE_EXCEEDED when over; 0: none. */
  read_timeout: number;
  /** The Collector's keepalive settings; only `max_connection_idle` (milliseconds, 0: never) so far: a
   *  connection with no call for that long is closed (GOAWAY), so idle clients cannot pile up sockets. */
  keepalive: { server_parameters: { max_connection_idle: number } };
  /** TLS (and mutual TLS with a client CA); absent: plaintext. */
  tls?: TlsConfig;
  /** The authenticator extension every call must pass (gRPC metadata `authorization`). */
  auth?: AuthSetting;
}

export interface OtlpReceiverConfig {
  protocols: {
    http?: Partial<OtlpHttpProtocolConfig> | null;
    grpc?: Partial<OtlpGrpcProtocolConfig> | null;
  };
}

export const HTTP_DEFAULTS: OtlpHttpProtocolConfig = {
  endpoint: '127.0.0.1:4318',
  max_request_body_size: 20_971_520,
  max_spans_per_request: 100_000,
  max_values_per_request: 500_000,
  cors: NO_CORS,
  ...READ_TIMEOUT_DEFAULTS,
};

export const GRPC_DEFAULTS: OtlpGrpcProtocolConfig = {
  endpoint: '127.0.0.1:4317',
  max_recv_msg_size_mib: 20,
  max_spans_per_request: 100_000,
  max_values_per_request: 500_000,
  read_timeout: READ_TIMEOUT_DEFAULTS.read_timeout,
  keepalive: { server_parameters: { max_connection_idle: 5 * 60_000 } },
};

/** An object whose unknown keys are errors, that may also be null (YAML `http:`), with no default. */
function protocol(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: ['object', 'null'], additionalProperties: false, properties };
}

export const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['protocols'],
  properties: {
    protocols: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        http: protocol({
          endpoint: endpoint(HTTP_DEFAULTS.endpoint),
          max_request_body_size: integer(HTTP_DEFAULTS.max_request_body_size, 1),
          max_spans_per_request: integer(HTTP_DEFAULTS.max_spans_per_request, 1),
          max_values_per_request: integer(HTTP_DEFAULTS.max_values_per_request, 1),
          cors: corsSchema,
          tls: tlsSchema,
          auth: authSchema,
          ...readTimeoutProperties,
        }),
        grpc: protocol({
          endpoint: endpoint(GRPC_DEFAULTS.endpoint),
          max_recv_msg_size_mib: integer(GRPC_DEFAULTS.max_recv_msg_size_mib, 1),
          max_spans_per_request: integer(GRPC_DEFAULTS.max_spans_per_request, 1),
          max_values_per_request: integer(GRPC_DEFAULTS.max_values_per_request, 1),
          read_timeout: readTimeoutProperties.read_timeout,
          keepalive: object({ server_parameters: object({ max_connection_idle: duration('5m') }) }),
          tls: tlsSchema,
          auth: authSchema,
        }),
      },
    },
  },
};

/** The enabled protocols with every default applied (null or missing keys -> defaults). */
export function resolveProtocols(config: OtlpReceiverConfig): {
  http?: OtlpHttpProtocolConfig;
  grpc?: OtlpGrpcProtocolConfig;
} {
  const { http, grpc } = config.protocols ?? {};
  return {
    http: http === undefined ? undefined : { ...HTTP_DEFAULTS, ...(http ?? {}) },
    grpc: grpc === undefined ? undefined : { ...GRPC_DEFAULTS, ...(grpc ?? {}) },
  };
}
