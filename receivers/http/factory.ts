import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { schema, type HttpReceiverConfig } from './config.ts';
import { HttpReceiver } from './receiver.ts';
import { tlsProblems } from '../common/tls.ts';

export const factory: Factory<HttpReceiverConfig, Receiver, ReceiverContext> = {
  type: 'http',
  kind: 'receiver',
  schema,
  create: (config, context) => new HttpReceiver(config, context.consumer, context.logger),
  check: (config) => tlsProblems(config.tls, 'tls'),
};
