// The state the health_check extension assesses when several workers run: one ServiceStatus from
// each worker's last report. A receiver listens when it listens in every worker (a worker that is
// down or restarting makes the daemon not ready until it is back); a pipeline's stream is its fullest
// shard (each shard has its own bound and refuses on its own: one full shard refuses a share of the
// requests, however empty the others are), writable when every shard is; an exporter's backlog adds
// up, and it fails since the earliest failure of any worker's client.
import type { ExporterStatus, PipelineStatus, ReceiverStatus, ServiceStatus } from '../../pipeline/status.ts';

/** `reports`: the last status of each worker, undefined for a worker not running now. */
export function clusterStatus(reports: ReadonlyArray<ServiceStatus | undefined>): ServiceStatus {
  const known = reports.filter((r): r is ServiceStatus => r !== undefined);
  const everyWorker = known.length === reports.length && reports.length > 0;
  const receivers = new Map<string, ReceiverStatus>();
  const pipelines = new Map<string, PipelineStatus>();
  for (const report of known) {
    for (const r of report.receivers) {
      const seen = receivers.get(r.id);
      receivers.set(r.id, seen === undefined ? { ...r } : { ...seen, listening: seen.listening && r.listening });
    }
    for (const p of report.pipelines) {
      const seen = pipelines.get(p.id);
      pipelines.set(p.id, seen === undefined ? structuredClone(p) : addPipeline(seen, p));
    }
  }
  for (const r of receivers.values()) r.listening &&= everyWorker;
  return { receivers: [...receivers.values()], pipelines: [...pipelines.values()] };
}

function addPipeline(a: PipelineStatus, b: PipelineStatus): PipelineStatus {
  const writable = a.stream.writable && b.stream.writable;
  const fullest = b.stream.bytes * a.stream.maxBytes > a.stream.bytes * b.stream.maxBytes ? b.stream : a.stream;
  const stream = {
    writable,
    ...(writable ? {} : { reason: a.stream.reason ?? b.stream.reason }),
    bytes: fullest.bytes,
    maxBytes: fullest.maxBytes,
  };
  const exporters = a.exporters.map((e): ExporterStatus => {
    const other = b.exporters.find((o) => o.exporter === e.exporter);
    if (other === undefined) return e;
    const failing = [e.failingSince, other.failingSince].filter((t): t is number => t !== undefined);
    return { ...e, backlogSpans: e.backlogSpans + other.backlogSpans, failingSince: failing.length > 0 ? Math.min(...failing) : undefined };
  });
  return { id: a.id, stream, exporters };
}
