// Whether the daemon is ready, from its components' state (pipeline/status.ts), and the JSON both probes
// answer. Pure: the time is given, so the rules are tested without waiting.
import type { ExporterStatus, ServiceStatus, StreamHealth } from '../../pipeline/status.ts';

export interface ReadinessRules {
  /** Milliseconds an exporter may keep failing and still count as ready. */
  failureThresholdMs: number;
  /** Percent of its max_bytes a stream may hold and still count as ready. */
  highWaterPercent: number;
}

export interface ReceiverReport {
  state: 'listening' | 'not_listening';
  ready: boolean;
  endpoints: string[];
}

export interface StreamReport {
  state: 'writable' | 'above_high_water' | 'not_writable';
  ready: boolean;
  reason?: string;
  bytes: number;
  max_bytes: number;
  high_water_bytes: number;
}

export interface ExporterReport {
  /** caught_up: nothing left to deliver; delivering: a backlog, exports succeed; failing: the last attempt failed. */
  state: 'caught_up' | 'delivering' | 'failing';
  ready: boolean;
  backlog_spans: number;
  failing_since?: string;
  failing_for_ms?: number;
}

export interface HealthReport {
  /** The process answers: always true in an answer. */
  live: true;
  ready: boolean;
  receivers: Record<string, ReceiverReport>;
  pipelines: Record<string, { stream: StreamReport; exporters: Record<string, ExporterReport> }>;
}

function streamReport(stream: StreamHealth, rules: ReadinessRules): StreamReport {
  const highWater = Math.floor((stream.maxBytes * rules.highWaterPercent) / 100);
  const sizes = { bytes: stream.bytes, max_bytes: stream.maxBytes, high_water_bytes: highWater };
  if (!stream.writable) return { state: 'not_writable', ready: false, reason: stream.reason, ...sizes };
  // At 100% the bound itself is the mark: a stream that holds it refuses appends.
  if (stream.bytes >= highWater) return { state: 'above_high_water', ready: false, ...sizes };
  return { state: 'writable', ready: true, ...sizes };
}

function exporterReport(exporter: ExporterStatus, rules: ReadinessRules, now: number): ExporterReport {
  const backlog = exporter.backlogSpans;
  if (exporter.failingSince === undefined) return { state: backlog === 0 ? 'caught_up' : 'delivering', ready: true, backlog_spans: backlog };
  const failingFor = Math.max(0, now - exporter.failingSince);
  return {
    state: 'failing',
    ready: failingFor < rules.failureThresholdMs,
    backlog_spans: backlog,
    failing_since: new Date(exporter.failingSince).toISOString(),
    failing_for_ms: failingFor,
  };
}

/** Ready when every receiver listens, every stream is writable and under its mark, and no exporter has failed for the threshold or longer. */
export function assess(status: ServiceStatus, rules: ReadinessRules, now: number): HealthReport {
  let ready = true;
  const receivers: HealthReport['receivers'] = {};
  for (const r of status.receivers) {
    receivers[r.id] = { state: r.listening ? 'listening' : 'not_listening', ready: r.listening, endpoints: r.endpoints };
    ready &&= r.listening;
  }
  const pipelines: HealthReport['pipelines'] = {};
  for (const p of status.pipelines) {
    const stream = streamReport(p.stream, rules);
    ready &&= stream.ready;
    const exporters: Record<string, ExporterReport> = {};
    for (const e of p.exporters) {
      exporters[e.exporter] = exporterReport(e, rules, now);
      ready &&= exporters[e.exporter].ready;
    }
    pipelines[p.id] = { stream, exporters };
  }
  return { live: true, ready, receivers, pipelines };
}
