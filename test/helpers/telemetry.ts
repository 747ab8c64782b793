// The daemon's telemetry address as tests use it: the Prometheus exposition summed by metric name, and
// a reload by `POST /-/reload`.

/** The sum of the samples of `name` (whose labels contain `labels`) in a Prometheus exposition. */
export function metric(text: string, name: string, labels?: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.split(/[{ ]/, 1)[0] !== name) continue;
    if (labels !== undefined && !line.includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

export interface ReloadOutcome {
  status: number;
  body: { result: string; generation: number; problems?: string[] };
}

/** Asks the daemon whose telemetry address is `metricsUrl` to reload its config. */
export async function reload(metricsUrl: string): Promise<ReloadOutcome> {
  const res = await fetch(`${metricsUrl}/-/reload`, { method: 'POST' });
  return { status: res.status, body: await res.json() as ReloadOutcome['body'] };
}
