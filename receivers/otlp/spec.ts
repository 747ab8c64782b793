// What the config loader needs of this component (cmd/components.ts): the implementation is imported only
// when a config uses it (factory.ts).
import type { ComponentSpecOf } from '../../pipeline/registry.ts';
import { resolveProtocols, schema, type OtlpReceiverConfig } from './config.ts';
import { tlsProblems } from '../common/tls.ts';

export const spec: ComponentSpecOf<OtlpReceiverConfig> = {
  type: 'otlp',
  kind: 'receiver',
  schema,
  check: (config) => {
    const { http, grpc } = resolveProtocols(config);
    return [...tlsProblems(http?.tls, 'protocols.http.tls'), ...tlsProblems(grpc?.tls, 'protocols.grpc.tls')];
  },
};
