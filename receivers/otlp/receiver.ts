// The `otlp` receiver: OTLP/HTTP and/or OTLP/gRPC listeners, each enabled by its key in `protocols`.
import type { IngestConsumer, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { authenticateFor } from '../../pipeline/auth.ts';
import type { Logger } from '../../pipeline/log.ts';
import { resolveProtocols, type OtlpReceiverConfig } from './config.ts';
import type { OtlpGrpcServer } from './grpc-server.ts';
import { OtlpHttpServer } from './http-server.ts';

export class OtlpReceiver implements Receiver {
  readonly http: OtlpHttpServer | undefined;
  /** Set by start() when gRPC is enabled. */
  grpc: OtlpGrpcServer | undefined;
  private readonly grpcConfig: ReturnType<typeof resolveProtocols>['grpc'];
  private readonly consumer: IngestConsumer;
  private readonly logger: Logger;
  private readonly authenticator: ReceiverContext['authenticator'];
  private readonly metrics: ReceiverContext['metrics'];

  /** `authenticator`: the context's extensions, for the protocols' `auth` settings; `metrics`: the context's. */
  constructor(
    config: OtlpReceiverConfig, consumer: IngestConsumer, logger: Logger, authenticator?: ReceiverContext['authenticator'],
    metrics?: ReceiverContext['metrics'],
  ) {
    const protocols = resolveProtocols(config);
    this.authenticator = authenticator;
    this.metrics = metrics;
    this.http = protocols.http && new OtlpHttpServer(protocols.http, consumer, logger, authenticateFor(protocols.http.auth, authenticator), metrics?.('http'));
    this.grpcConfig = protocols.grpc;
    this.consumer = consumer;
    this.logger = logger;
  }

  async start(): Promise<void> {
    await this.http?.start();
    try {
      if (this.grpcConfig) {
        // grpc-js (~15 MiB of RSS) is loaded only when gRPC is configured.
        const { OtlpGrpcServer } = await import('./grpc-server.ts');
        this.grpc = new OtlpGrpcServer(this.grpcConfig, this.consumer, this.logger, authenticateFor(this.grpcConfig.auth, this.authenticator), this.metrics?.('grpc'));
        await this.grpc.start();
      }
    } catch (error) {
      // Do not leave the HTTP port bound when the receiver as a whole failed to start.
      await this.http?.shutdown();
      throw error;
    }
  }

  /**
   * A reload replaced `previous`: its HTTP listening server is handed over (same endpoint and TLS), and
   * its gRPC server kept as it is, which needs the gRPC settings unchanged (the service is bound to the
   * server when it starts; it calls through the receiver's consumer slot, which the graph keeps for the
   * receiver's id and points at the new pipelines).
   */
  takeOver(previous: Receiver): boolean {
    if (!(previous instanceof OtlpReceiver)) return false;
    if (JSON.stringify(previous.grpcConfig) !== JSON.stringify(this.grpcConfig)) return false;
    if ((this.http === undefined) !== (previous.http === undefined)) return false;
    if (this.http !== undefined && !this.http.takeOver(previous.http!)) return false;
    this.grpc = previous.grpc;
    previous.grpc = undefined;
    return true;
  }

  endpoints(): string[] {
    const out: string[] = [];
    const http = this.http?.endpoint();
    if (http !== undefined) out.push(http);
    const grpc = this.grpc?.endpoint();
    if (grpc !== undefined) out.push(grpc);
    return out;
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.http?.shutdown(), this.grpc?.shutdown()]);
  }
}
