// What the running daemon reports about its components when asked (the health_check extension): read
// from the receivers, streams and export runners at that moment, nothing counted per span.
import type { StreamHealth } from './stream/stream.ts';

export type { StreamHealth } from './stream/stream.ts';

export interface ExporterStatus {
  exporter: string;
  pipeline: string;
  /** Date.now() of the first failed attempt since the last successful export; undefined when not failing. */
  failingSince: number | undefined;
  /** Spans in the stream this exporter has not committed yet. */
  backlogSpans: number;
}

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
