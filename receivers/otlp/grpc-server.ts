// OTLP/gRPC: the TraceService Export method on @grpc/grpc-js, with a hand-written service definition
// whose (de)serializers are the codec's (no proto-loader, no generated code). The request is kept as
// bytes by the deserializer and decoded in the handler, so an undecodable body becomes
// INVALID_ARGUMENT rather than grpc-js's generic INTERNAL. grpc-js undoes gzip message compression.
// The message framing is checked before grpc-js reads it (grpc-frame-check.ts).
import { OtlpRules } from '../../codec/otlp/rules.ts';
import { experimental, Metadata, Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import type { IngestConsumer } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { encodeExportResponse, OtlpDecodeError, OtlpLimitError, ProtoDecoder, type DecodedRequest } from '../../codec/otlp/index.ts';
import type { OtlpGrpcProtocolConfig } from './config.ts';
import { parseEndpoint, warnIfOpen } from '../common/endpoint.ts';
import type { Authenticate } from '../../pipeline/auth.ts';
import type { TlsConfig } from '../common/tls.ts';
import { ingest, retryAfterSeconds } from './ingest.ts';
import { grpcFrameCheck } from './grpc-frame-check.ts';
import { NO_RECEIVER_METRICS, type RefusalReason, type ReceiverMetrics } from '../../pipeline/telemetry/metrics.ts';
import { refusedByReason } from '../common/refusal.ts';
import { countedCallback } from './grpc-metrics.ts';

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

const identity = (b: Buffer): Buffer => b;

export const traceServiceDefinition: ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength),
    responseDeserialize: identity,
  },
};

interface GrpcError {
  code: number;
  details: string;
  metadata?: Metadata;
  /** For the metrics (grpc-metrics.ts): who refused an UNAVAILABLE; not sent. */
  reason?: RefusalReason;
}

function error(code: number, details: string, retryAfterMs?: number, reason?: RefusalReason): GrpcError {
  const e: GrpcError = { code, details, reason };
  if (retryAfterMs !== undefined) {
    // Not part of OTLP/gRPC (which uses RetryInfo details); a hint for humans and simple clients.
    e.metadata = new Metadata();
    e.metadata.set('retry-after', String(retryAfterSeconds(retryAfterMs)));
  }
  return e;
}

/**
 * gRPC server credentials for `tls` (receivers/common/tls.ts); grpc-js itself re-reads the files every
 * `reload_interval`. Here and not in tls.ts, so that grpc-js is loaded only when gRPC is configured.
 */
export function grpcCredentials(tls: TlsConfig | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const identity = new experimental.FileWatcherCertificateProvider({
    certificateFile: tls.cert_file, privateKeyFile: tls.key_file, refreshIntervalMs: tls.reload_interval,
  });
  const ca = tls.client_ca_file === undefined ? null : new experimental.FileWatcherCertificateProvider({
    caCertificateFile: tls.client_ca_file, refreshIntervalMs: tls.reload_interval,
  });
  // The first argument is the server's identity, the second the CA that checks clients (the parameter
  // names of grpc-js's declaration say otherwise; its implementation takes them in this order).
  return experimental.createCertificateProviderServerCredentials(identity, ca, ca !== null);
}

export class OtlpGrpcServer {
  readonly #config: OtlpGrpcProtocolConfig;
  readonly #consumer: IngestConsumer;
  readonly #logger: Logger;
  readonly #decoder: ProtoDecoder;
  readonly #rules = new OtlpRules();
  #server: Server | undefined;
  #port = 0;
  #host = '';

  readonly #authenticate: Authenticate;
  readonly #metrics: ReceiverMetrics;

  constructor(config: OtlpGrpcProtocolConfig, consumer: IngestConsumer, logger: Logger, authenticate: Authenticate = undefined, metrics = NO_RECEIVER_METRICS) {
    this.#authenticate = authenticate;
    this.#metrics = metrics;
    warnIfOpen(config.endpoint, authenticate !== undefined, logger, 'otlp receiver (grpc)');
    this.#config = config;
    this.#decoder = new ProtoDecoder(config.max_spans_per_request, config.max_values_per_request);
    this.#consumer = consumer;
    this.#logger = logger;
  }

  async #export(call: ServerUnaryCall<Buffer, Uint8Array>, callback: sendUnaryData<Uint8Array>): Promise<void> {
    try {
      let project: string | undefined;
      if (this.#authenticate !== undefined) {
        const [authorization] = call.metadata.get('authorization');
        const identity = this.#authenticate(typeof authorization === 'string' ? authorization : undefined);
        if (identity === undefined) {
          callback(error(status.UNAUTHENTICATED, 'missing or unknown API key'));
          return;
        }
        project = identity.project;
      }
      const refusal = this.#consumer.admit();
      if (refusal !== undefined) {
        callback(error(status.UNAVAILABLE, refusal.message, refusal.retryAfterMs, refusedByReason(refusal.refusedBy)));
        return;
      }
      const behind = this.#consumer.waitForExporters();
      if (behind !== undefined) await behind;
      let decoded: DecodedRequest;
      try {
        decoded = this.#decoder.decode(call.request);
      } catch (e) {
        if (e instanceof OtlpLimitError) {
          callback(error(status.RESOURCE_EXHAUSTED, e.message));
          return;
        }
        if (!(e instanceof OtlpDecodeError)) throw e;
        callback(error(status.INVALID_ARGUMENT, `cannot decode the request: ${e.message}`));
        return;
      }
      const outcome = await ingest(this.#consumer, this.#rules, decoded.spans, call.request.length, this.#logger, project, this.#metrics);
      switch (outcome.kind) {
        case 'accepted':
          callback(null, encodeExportResponse(outcome.partial));
          return;
        case 'all_rejected':
          callback(error(status.INVALID_ARGUMENT, outcome.message));
          return;
        case 'refused':
          callback(error(outcome.status === 429 ? status.RESOURCE_EXHAUSTED : status.UNAVAILABLE, outcome.message, outcome.retryAfterMs, refusedByReason(outcome.refusedBy)));
          return;
        case 'failed':
          callback(error(status.INTERNAL, outcome.message));
          return;
      }
    } catch (e) {
      this.#logger.error('otlp grpc export failed', { error: e });
      callback(error(status.INTERNAL, 'internal error'));
    }
  }

  start(): Promise<void> {
    const maxBytes = this.#config.max_recv_msg_size_mib * 1024 * 1024;
    const server = new Server({
      'grpc.max_receive_message_length': maxBytes,
      // grpc-js closes a connection idle this long with GOAWAY; an absent option is never.
      ...(this.#config.keepalive.server_parameters.max_connection_idle > 0
        ? { 'grpc.max_connection_idle_ms': this.#config.keepalive.server_parameters.max_connection_idle }
        : {}),
      interceptors: [grpcFrameCheck({ maxBytes, maxMib: this.#config.max_recv_msg_size_mib, readTimeout: this.#config.read_timeout }, this.#logger)],
    });
    server.addService(traceServiceDefinition, {
      Export: (call: ServerUnaryCall<Buffer, Uint8Array>, callback: sendUnaryData<Uint8Array>) => {
        void this.#export(call, countedCallback(this.#metrics, callback));
      },
    });
    const { host, port } = parseEndpoint(this.#config.endpoint);
    const bindHost = host === undefined ? '0.0.0.0' : host.includes(':') ? `[${host}]` : host;
    return new Promise((resolve, reject) => {
      server.bindAsync(`${bindHost}:${port}`, grpcCredentials(this.#config.tls), (err, boundPort) => {
        if (err) {
          reject(new StartupError(`otlp receiver: cannot listen on ${this.#config.endpoint} (grpc): ${err.message}`, { cause: err }));
          return;
        }
        this.#server = server;
        this.#port = boundPort;
        this.#host = bindHost;
        resolve();
      });
    });
  }

  endpoint(): string | undefined {
    return this.#server === undefined ? undefined : `grpc://${this.#host}:${this.#port}`;
  }

  /** The bound port (tests start on port 0). */
  port(): number {
    return this.#port;
  }

  shutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#server = undefined;
    // In-flight calls finish; no new ones are accepted.
    return new Promise((resolve) => server.tryShutdown(() => resolve()));
  }
}
