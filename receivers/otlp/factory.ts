import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import { schema, type OtlpReceiverConfig } from './config.ts';
import { OtlpReceiver } from './receiver.ts';

export const factory: Factory<OtlpReceiverConfig, Receiver, ReceiverContext> = {
  type: 'otlp',
  kind: 'receiver',
  schema,
  create: (config, context) => new OtlpReceiver(config, context.consumer, context.logger),
};
