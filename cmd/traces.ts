// `tracehop traces` and `tracehop trace ID`: print traces from a running daemon's trace store, through the
// tracing API's read routes (`POST /tracing/spans/query`, `GET /tracing/traces/{trace_id}`), so they show
// exactly what an API client would get, scoped by the key sent (read-api.md §2.4).
import { formatTraceList, formatTraceTree, summarise, type SpanMap } from './trace-format.ts';

export interface ReadClientOptions {
  /** The tracing API's base URL. */
  endpoint: string;
  /** Sent as `Authorization: ApiKey <key>` when set. */
  apiKey?: string;
}

export interface TracesOptions extends ReadClientOptions {
  limit: number;
}

export interface TraceOptions extends ReadClientOptions {
  /** 32 lowercase hex (normalised by the argument parser). */
  traceId: string;
}

interface TraceMapAnswer {
  count: number;
  traces?: Record<string, { spans?: SpanMap }>;
}

/** The answer's JSON when the daemon answered 200; otherwise an error naming the URL, status and body. */
async function read(options: ReadClientOptions, path: string, init: RequestInit = {}): Promise<TraceMapAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey) headers.authorization = `ApiKey ${options.apiKey}`;
  const url = options.endpoint.replace(/\/+$/, '') + path;
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch (error) {
    // fetch says only `fetch failed`; the URL and the cause (ECONNREFUSED...) are what the user needs.
    throw new Error(`cannot reach ${url}`, { cause: (error as Error).cause ?? error });
  }
  const text = await response.text();
  if (response.status !== 200) {
    const hint = response.status === 501 ? ' (the daemon has no store exporter serving reads)' : '';
    throw new Error(`${url} answered ${response.status}${hint}: ${text.trim().slice(0, 300)}`);
  }
  try {
    return JSON.parse(text) as TraceMapAnswer;
  } catch {
    throw new Error(`${url} answered 200 with something that is not JSON (is it tracehop's tracing API?): ${text.trim().slice(0, 100)}`);
  }
}

/** Prints the most recent traces, one line each; exit 0 (also when none is stored, said on stderr). */
export async function listTraces(options: TracesOptions, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const answer = await read(options, '/tracing/spans/query', { method: 'POST', body: JSON.stringify({ focus: 'trace', limit: options.limit }) });
  const traces = Object.entries(answer.traces ?? {});
  if (traces.length === 0) {
    err.write('tracehop traces: no trace stored\n');
    return 0;
  }
  // The query answers traces newest first (read-api.md §6.3); the map keeps that order (trace ids are
  // 32 hex digits, never integer-like keys that JSON objects would move).
  out.write(formatTraceList(traces.map(([id, trace]) => summarise(id, trace.spans))));
  return 0;
}

/** Prints one trace as a tree; exit 1 when the store has no such trace (in the caller's scope). */
export async function showTrace(options: TraceOptions, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const answer = await read(options, `/tracing/traces/${options.traceId}`);
  const trace = answer.traces?.[options.traceId];
  if (answer.count === 0 || trace === undefined) {
    err.write(`tracehop trace: no trace ${options.traceId} in the store\n`);
    return 1;
  }
  out.write(formatTraceTree(options.traceId, trace.spans));
  return 0;
}
