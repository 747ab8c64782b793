// `tracehop tap`: prints the spans passing a pipeline of a running daemon, one span record (JSON) per
// line on stdout, from its telemetry address (`GET /tap`, cmd/metrics-server.ts). What the daemon says
// about the tap (what is watched, spans missed because this reader was too slow) goes to stderr.
export interface TapOptions {
  /** host:port of service.telemetry.metrics.address. */
  address: string;
  pipeline?: string;
  /** Before the pipeline's processors (as received), else after them. */
  received: boolean;
  traceId?: string;
  name?: string;
  attribute?: string;
  /** Stop after this many spans. */
  count?: number;
}

/** Streams until the daemon ends the tap, `count` spans were printed, or `signal` aborts; the exit code. */
export async function tap(options: TapOptions, out: NodeJS.WritableStream, err: NodeJS.WritableStream, signal?: AbortSignal): Promise<number> {
  const query = new URLSearchParams({ point: options.received ? 'received' : 'processed' });
  if (options.pipeline) query.set('pipeline', options.pipeline);
  if (options.traceId) query.set('trace_id', options.traceId);
  if (options.name) query.set('name', options.name);
  if (options.attribute) query.set('attribute', options.attribute);
  const url = `http://${options.address}/tap?${query}`;
  const stop = new AbortController();
  signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const response = await fetch(url, { signal: stop.signal });
  if (response.status !== 200) {
    err.write(`tracehop tap: ${url} answered ${response.status}: ${(await response.text()).trim()}\n`);
    return 1;
  }
  let printed = 0;
  let pending = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.startsWith('{"tap":')) { err.write(`tracehop tap: ${line}\n`); continue; }
        out.write(line + '\n');
        if (options.count !== undefined && ++printed >= options.count) {
          stop.abort();
          return 0;
        }
      }
    }
  } catch (e) {
    if (!stop.signal.aborted) throw e;
  }
  return 0;
}
