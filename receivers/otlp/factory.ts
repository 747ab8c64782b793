import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import type { OtlpReceiverConfig } from './config.ts';
import { spec } from './spec.ts';
import { OtlpReceiver } from './receiver.ts';

export const factory: Factory<OtlpReceiverConfig, Receiver, ReceiverContext> = {
  ...spec,
  create: (config, context) => new OtlpReceiver(config, context.consumer, context.logger, context.authenticator, context.metrics),
};
