// `tracehop replay FILE`: sends spans written by tracehop back into a running daemon, through its tracing
// API. FILE is a dead-letter file (`{"reason", "exporter", "at", "span": <record>}` per line) or the output
// of the file exporter (one span record per line). A span record is a valid flat span of the tracing API,
// and the namespace processor gives the same record for it again, so replayed spans come out as they went
// in (the project, if any, is the one of the key replay sends: a client cannot set it).
//
// Requests are sent one at a time, `batch` spans each; a 429 or 503 is retried after its Retry-After, so a
// replay never loses a span to back-pressure. What the daemon rejects is counted by reason.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ReplayOptions {
  file: string;
  /** The tracing API's base URL. */
  endpoint: string;
  /** Sent as `Authorization: ApiKey <key>` when set. */
  apiKey?: string;
  /** Spans per request. */
  batch: number;
}

export interface ReplayCount {
  lines: number;
  /** Lines that are neither a span record nor a dead-letter line (the first few are named in `problems`). */
  unreadable: number;
  sent: number;
  accepted: number;
  rejected: number;
  /** Rejections by reason (the part before `:`), and unreadable lines by line number. */
  problems: Map<string, number>;
}

/** Refused requests are retried this many times before replay gives up (each after its Retry-After). */
const MAX_RETRIES = 100;
const PROBLEMS_KEPT = 20;

/** The span record of one line, or undefined. */
function spanOf(line: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if ('span' in record && 'reason' in record) return record.span;
  return 'trace_id' in record && 'span_id' in record ? record : undefined;
}

function note(count: ReplayCount, problem: string): void {
  if (count.problems.size < PROBLEMS_KEPT || count.problems.has(problem)) {
    count.problems.set(problem, (count.problems.get(problem) ?? 0) + 1);
  }
}

/** Sends one request of spans; retries refusals; counts the answer. Throws when the daemon cannot take it. */
async function send(options: ReplayOptions, spans: unknown[], count: ReplayCount): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `ApiKey ${options.apiKey}`;
  const url = options.endpoint.replace(/\/+$/, '') + '/tracing/spans/ingest';
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ spans }) });
    const text = await response.text();
    if ((response.status === 429 || response.status === 503) && attempt < MAX_RETRIES) {
      const seconds = Number(response.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000));
      continue;
    }
    count.sent += spans.length;
    if (response.status === 202) {
      const body = JSON.parse(text) as { count: number; rejected?: { reason: string }[] };
      const rejected = body.rejected ?? [];
      count.accepted += spans.length - rejected.length;
      count.rejected += rejected.length;
      for (const r of rejected) note(count, r.reason.split(':')[0]);
      return;
    }
    if (response.status === 422) {
      const detail = (JSON.parse(text) as { detail: unknown }).detail;
      count.rejected += spans.length;
      if (Array.isArray(detail)) for (const r of detail as { reason: string }[]) note(count, r.reason.split(':')[0]);
      else note(count, String(detail));
      return;
    }
    throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** Replays the file; resolves with what went in. */
export async function replay(options: ReplayOptions): Promise<ReplayCount> {
  const count: ReplayCount = { lines: 0, unreadable: 0, sent: 0, accepted: 0, rejected: 0, problems: new Map() };
  const lines = createInterface({ input: createReadStream(options.file), crlfDelay: Infinity });
  let batch: unknown[] = [];
  for await (const line of lines) {
    count.lines++;
    if (line.trim() === '') continue;
    const span = spanOf(line);
    if (span === undefined) {
      count.unreadable++;
      note(count, `line ${count.lines}: not a span record or a dead-letter line`);
      continue;
    }
    batch.push(span);
    if (batch.length >= options.batch) {
      await send(options, batch, count);
      batch = [];
    }
  }
  if (batch.length > 0) await send(options, batch, count);
  return count;
}

/** The summary replay prints (one line, then one per problem). */
export function replaySummary(file: string, count: ReplayCount): string {
  let text = `${file}: ${count.lines} lines, ${count.sent} spans sent, ${count.accepted} accepted, ${count.rejected} rejected, ${count.unreadable} unreadable\n`;
  for (const [problem, n] of count.problems) text += `  ${n} x ${problem}\n`;
  return text;
}
