import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { resolveProtocols, schema, type OtlpReceiverConfig } from './config.ts';
import { tlsProblems } from '../common/tls.ts';
import { OtlpReceiver } from './receiver.ts';

export const factory: Factory<OtlpReceiverConfig, Receiver, ReceiverContext> = {
  type: 'otlp',
  kind: 'receiver',
  schema,
  create: (config, context) => new OtlpReceiver(config, context.consumer, context.logger, context.authenticator, context.metrics),
  check: (config) => {
    const { http, grpc } = resolveProtocols(config);
    return [...tlsProblems(http?.tls, 'protocols.http.tls'), ...tlsProblems(grpc?.tls, 'protocols.grpc.tls')];
  },
};
