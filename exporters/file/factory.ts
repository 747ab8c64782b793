import type { Exporter, Factory } from '../../pipeline/component.ts';
import { BYTES_PER_MEGABYTE, type FileConfig } from './config.ts';
import { spec } from './spec.ts';
import { FileExporter } from './file-exporter.ts';

export const factory: Factory<FileConfig, Exporter> = {
  ...spec,
  create: (config, context) =>
    new FileExporter({
      path: config.path,
      attributesShape: config.attributes_shape,
      maxBytes: Math.floor(config.rotation.max_megabytes * BYTES_PER_MEGABYTE),
      maxBackups: config.rotation.max_backups,
      logger: context.logger,
    }),
};
