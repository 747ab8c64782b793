// What one worker process runs of the loaded config when `service.workers` is above 1 (README.md here):
// every local resource its own (a file exporter's file, each dead-letter file, each stream's shard),
// and what the primary serves instead left out (the health_check extensions, the metrics listener).
import { extname, join } from 'node:path';
import type { LoadedConfig } from '../../config/load.ts';
import { defaultDeadLetterPath } from '../../pipeline/deadletter.ts';

/** The environment variable that tells a process forked by the primary which worker it is. */
export const WORKER_INDEX_VARIABLE = 'TRACEHOP_WORKER_INDEX';

/** Extensions the primary runs (their answer covers every worker), not the workers. */
export const PRIMARY_EXTENSIONS: readonly string[] = ['health_check'];

/** `spans.jsonl`, worker 1 -> `spans.1.jsonl`: beside the configured file, one per worker. */
export function workerPath(path: string, index: number): string {
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)}.${index}${ext}`;
}

/**
 * The stream directory of one pipeline: `<directory>/<pipeline id with / as _>/`, and below it
 * `<worker>/` when there are several workers. One worker keeps today's layout, so a data directory
 * written before workers existed is read as it is.
 */
export function shardDirectory(directory: string, pipelineId: string, worker: { index: number; count: number } | undefined): string {
  const pipeline = join(directory, pipelineId.replaceAll('/', '_'));
  return worker === undefined || worker.count <= 1 ? pipeline : join(pipeline, String(worker.index));
}

/** The config worker `index` runs: a copy, with its own files and without what the primary serves. */
export function workerConfig(config: LoadedConfig, index: number): LoadedConfig {
  const exporters = new Map([...config.exporters].map(([id, entry]) => {
    const settings = structuredClone(entry.config) as Record<string, unknown> & { path?: string; dead_letter?: { path?: string } };
    if (entry.type === 'file' && typeof settings.path === 'string') settings.path = workerPath(settings.path, index);
    settings.dead_letter = { ...settings.dead_letter, path: workerPath(settings.dead_letter?.path ?? defaultDeadLetterPath(id), index) };
    return [id, { ...entry, config: settings }];
  }));
  const extensions = new Map([...config.extensions ?? []].filter(([, entry]) => !PRIMARY_EXTENSIONS.includes(entry.type)));
  const telemetry = { ...config.service.telemetry, metrics: { address: 'none' } };
  return { ...config, exporters, extensions, service: { ...config.service, telemetry } };
}
