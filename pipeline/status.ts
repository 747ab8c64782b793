// What the running daemon reports about its components when asked (the health_check extension): read
// from the receivers, streams and export runners at that moment, nothing counted per span.
import type { ExporterStatus } from './runner.ts';
import type { StreamHealth } from './stream/stream.ts';

export type { ExporterStatus } from './runner.ts';
export type { StreamHealth } from './stream/stream.ts';

export interface ReceiverStatus {
  id: string;
  /** True once every receiver started and until shutdown began, while it has a listening address. */
  listening: boolean;
  endpoints: string[];
}

export interface PipelineStatus {
  id: string;
  stream: StreamHealth;
  /** One per exporter of the pipeline (each has its own cursor in the stream). */
  exporters: ExporterStatus[];
}

export interface ServiceStatus {
  receivers: ReceiverStatus[];
  pipelines: PipelineStatus[];
}
