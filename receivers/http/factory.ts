import type { Factory, Receiver, ReceiverContext } from '../../pipeline/component.ts';
import type { HttpReceiverConfig } from './config.ts';
import { spec } from './spec.ts';
import { HttpReceiver } from './receiver.ts';

export const factory: Factory<HttpReceiverConfig, Receiver, ReceiverContext> = {
  ...spec,
  create: (config, context) => new HttpReceiver(config, context),
};
