import type { Factory, ProcessorContext, SyncProcessor } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { CostConfig } from './config.ts';
import { spec } from './spec.ts';
import { CostProcessor, OUTCOMES } from './processor.ts';
import { readPricesFile } from './prices-file.ts';

export const factory: Factory<CostConfig, SyncProcessor, ProcessorContext> = {
  ...spec,
  create: (config, context) => {
    // Read again at start: the file may have changed since `validate` (or the config check) read it.
    const user = config.prices_file === undefined ? undefined : readPricesFile(config.prices_file);
    if (typeof user === 'string') throw new StartupError(`${context.id}: prices_file: ${user}`);
    return new CostProcessor({ user, span_types: config.span_types, max_cached_models: config.max_cached_models, logger: context.logger, metrics: context.metrics?.(OUTCOMES) });
  },
};
