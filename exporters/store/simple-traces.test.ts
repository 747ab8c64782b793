// Simple traces read from the store (read-api.md §8.1, §8.4, §8.5, §8.6; §12 tests 23, 24, 26, 28, 29):
// fixture F and simple traces written as the http receiver builds them, through the span checks and the
// namespace processor, into a real database file; the edit of §8.3 built from a stored head and stored again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../pipeline/log.ts';
import { checkSimpleEdit, checkSimpleTrace, simpleTraceSpan } from '../../receivers/http/simple-trace.ts';
import { editedSpan } from '../../receivers/http/simple-edit.ts';
import { parseSimpleQuery } from '../../receivers/http/simple-query-body.ts';
import type { Problem } from './query-body.ts';
import { parseRecord } from './read-span.ts';
import type { TraceReads } from './reads.ts';
import { StoreExporter } from './store-exporter.ts';
import { A, FIXTURE_F, G, T, T2, TEST_23, TEST_24, ingested } from '../../test/helpers/store-fixture.ts';

const S23 = '23232323232323232323232323232323';
const S = '24242424242424242424242424242424';
const SPAN_23 = '2323232323232323';
const SPAN_S = '2424242424242424';
const LIMITS = { defaultLimit: 100, maxLimit: 10_000 };
let now = Date.UTC(2026, 3, 16, 19, 0, 0);

let dir: string;
let store: StoreExporter;
let reads: TraceReads;

/** A simple trace written as `POST /simple/traces/` writes it. */
async function writeSimple(trace: unknown, traceId: string, spanId: string, project?: string): Promise<void> {
  const checked = checkSimpleTrace({ trace });
  if (Array.isArray(checked)) throw new Error(JSON.stringify(checked));
  await store.export(ingested([simpleTraceSpan(checked, traceId, spanId, '1776366000000000000')], project));
}

/** The edit of §8.3 on the stored head, stored as the pipeline would deliver it. */
async function patch(traceId: string, trace: unknown): Promise<void> {
  const edit = checkSimpleEdit({ trace });
  if (Array.isArray(edit)) throw new Error(JSON.stringify(edit));
  const head = reads.headSpan('', traceId)!;
  await store.export(ingested([editedSpan(parseRecord(head.record), edit)]));
}

async function simpleQuery(body: unknown): Promise<string[]> {
  const q = parseSimpleQuery(body, LIMITS);
  if (Array.isArray(q)) throw new Error(JSON.stringify(q));
  return (await reads.simpleQuery('', q)).map((t) => t.trace_id as string);
}


beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-simple-'));
  store = new StoreExporter({ path: join(dir, 'store.db'), maxBytes: 1 << 30, maxAge: 0, pruneInterval: 60_000, logger: silentLogger, now: () => now });
  await store.start();
  await store.export(ingested(FIXTURE_F));
  await writeSimple(TEST_23, S23, SPAN_23);
  await writeSimple(TEST_24, S, SPAN_S);
  reads = store.reads()!;
});
afterEach(async () => {
  await store.shutdown();
  await rm(dir, { recursive: true, force: true });
});

describe('the view (§8.1, §8.6)', () => {
  it('test 23: the two new flags, and every enum, data and list links read back as sent', () => {
    const head = reads.headSpan('', S23)!;
    const flags = Object.entries(parseRecord(head.record).attributes as object).filter(([k]) => k.startsWith('ag.flags.'));
    expect(Object.fromEntries(flags)).toEqual({ 'ag.flags.is_playground': true, 'ag.flags.is_otlp': true });
    const view = reads.simpleTrace('', S23)!;
    expect(view).toMatchObject({
      trace_id: S23, span_id: SPAN_23, origin: 'auto', kind: 'play', channel: 'otlp',
      data: { outputs: { score: 5 }, note: 'x' }, links: TEST_23.links,
    });
    expect(Object.keys(view)).toEqual(['trace_id', 'span_id', 'created_at', 'origin', 'kind', 'channel', 'data', 'links']);
  });

  it('test 24: a links map, workflow references kept, origin custom', () => {
    const view = reads.simpleTrace('', S)!;
    expect(view.links).toEqual(TEST_24.links);
    expect(view.references).toEqual(TEST_24.references);
    expect(view.origin).toBe('custom');
    expect(reads.headSpan('', S)!.span_name).toBe('user-feedback');
  });

  it('reads any trace through its earliest root: A for T, not the earlier orphan D', () => {
    const view = reads.simpleTrace('', T)!;
    expect(view).toMatchObject({ span_id: A, origin: 'auto', kind: 'adhoc', channel: 'api', data: { inputs: { q: 'hi' } } });
    expect(reads.simpleTrace('', '0123456789abcdef0123456789abcdef')).toBeUndefined();
    expect(reads.simpleTrace('p1', T)).toBeUndefined();
  });
});

describe('the edit (§8.3)', () => {
  it('test 25: tags replaced, the other parts, the name and the times kept', async () => {
    const before = reads.simpleTrace('', S)!;
    const record = parseRecord(reads.headSpan('', S)!.record);
    now += 1000;
    await patch(S, { tags: { reviewed: true } });
    const after = reads.simpleTrace('', S)!;
    const { updated_at, tags, ...rest } = after;
    expect(tags).toEqual({ reviewed: true });
    expect(updated_at).toBe('2026-04-16T19:00:01Z');
    expect(rest).toEqual(before);
    const edited = parseRecord(reads.headSpan('', S)!.record);
    expect([edited.span_name, edited.start_time, edited.end_time]).toEqual([record.span_name, record.start_time, record.end_time]);
    expect(edited.references).toEqual(record.references);
  });

  it('test 26: empty tags clear them; origin human sets is_feedback and drops is_custom', async () => {
    await patch(S, { tags: { reviewed: true } });
    await patch(S, { tags: {} });
    expect(reads.simpleTrace('', S)!).not.toHaveProperty('tags');
    await patch(S, { origin: 'human' });
    expect(reads.simpleTrace('', S)!.origin).toBe('human');
    const attributes = parseRecord(reads.headSpan('', S)!.record).attributes as Record<string, unknown>;
    expect(attributes['ag.flags.is_feedback']).toBe(true);
    expect(attributes).not.toHaveProperty('ag.flags.is_custom');
  });

  it('replaces data, references and links whole', async () => {
    await patch(S23, { data: { inputs: { a: 1 } }, references: { evaluator: { slug: 'e2' } }, links: { only: { trace_id: T2, span_id: G } } });
    const view = reads.simpleTrace('', S23)!;
    expect(view.data).toEqual({ inputs: { a: 1 } });
    expect(view.references).toEqual({ evaluator: { slug: 'e2' } });
    expect(view.links).toEqual({ only: { trace_id: T2, span_id: G } });
    expect([view.origin, view.kind, view.channel]).toEqual(['auto', 'play', 'otlp']);
  });
});

describe('the head rule (§8.1), the same for a read, a query and a delete', () => {
  it('without a root: the earliest span, a tie broken by the lower span id', async () => {
    const H = '48'.repeat(16);
    const span = (span_id: string, start: string) => ({
      trace_id: H, span_id, parent_id: 'dddddddddddddddd', span_name: span_id.slice(0, 2), start_time: `2026-04-16T19:00:${start}Z`,
      end_time: '2026-04-16T19:01:00Z',
    });
    await store.export(ingested([span('cccccccccccccccc', '01'), span('bbbbbbbbbbbbbbbb', '00'), span('aaaaaaaaaaaaaaaa', '00.5'), span('abababababababab', '00')]));
    // By hand: bbbb and abab start first (19:00:00); abab has the lower id.
    expect(reads.headSpan('', H)!.span_id).toBe('abababababababab');
    const q = parseSimpleQuery({}, LIMITS);
    if (Array.isArray(q)) throw new Error(JSON.stringify(q));
    expect((await reads.simpleQuery('', q)).find((t) => t.trace_id === H)).toMatchObject({ span_id: 'abababababababab' });
    expect(reads.deleteSimpleTrace('', H)).toEqual({ trace_id: H, span_id: 'abababababababab' });
  });
});

describe('delete (§8.4)', () => {
  it('test 28: the head link once, then nothing', () => {
    expect(reads.deleteSimpleTrace('', T)).toEqual({ trace_id: T, span_id: A });
    expect(reads.getTrace('', T)).toBeUndefined();
    expect(reads.deleteSimpleTrace('', T)).toBeUndefined();
  });
});

describe('query (§8.5)', () => {
  it('test 29: a links map, a top-level link, an origin', async () => {
    expect(await simpleQuery({ trace: { links: { invocation: { trace_id: T } } } })).toEqual([S]);
    expect(await simpleQuery({ links: [{ trace_id: S, span_id: '0000000000000001' }] })).toEqual([]);
    expect(await simpleQuery({ links: [{ trace_id: S, span_id: SPAN_S }] })).toEqual([S]);
    expect((await simpleQuery({ trace: { origin: 'auto' } })).sort()).toEqual([S23, T, T2].sort());
  });

  it('orders by head start descending, then trace id; windowing and a list of links', async () => {
    expect(await simpleQuery({})).toEqual([S, S23, T2, T]);
    expect(await simpleQuery({ windowing: { limit: 2, order: 'ascending' } })).toEqual([T, T2]);
    expect(await simpleQuery({ trace: { links: [{ span_id: G }] } })).toEqual([S23]);
    expect(await simpleQuery({ trace: { references: { workflow: { slug: 'w' } } } })).toEqual([S]);
    expect(await simpleQuery({ trace: { kind: 'play', channel: 'otlp' } })).toEqual([S23]);
    expect(await simpleQuery({ windowing: { newest: '2026-04-16T18:20:00Z' } })).toEqual([T]);
    // A bound past the column's range (2^63-1 ns) is clamped, as on /spans/query, not refused by SQLite.
    expect(await simpleQuery({ windowing: { newest: '2300-01-01T00:00:00Z' } })).toEqual([S, S23, T2, T]);
    expect(await simpleQuery({ windowing: { oldest: '2300-01-01T00:00:00Z' } })).toEqual([]);
  });

  it('refuses unknown keys and bad values with 422 entries', () => {
    const problems = (body: unknown) => (parseSimpleQuery(body, LIMITS) as Problem[]).map((p) => [p.loc.join('.'), p.type]);
    expect(problems({ trace: { colour: 1 } })).toEqual([['body.trace.colour', 'extra_forbidden']]);
    expect(problems({ trace: { data: 5 } })).toEqual([['body.trace.data', 'extra_forbidden']]);
    expect(problems({ trace: { kind: 'x' } })).toEqual([['body.trace.kind', 'enum']]);
    expect(problems({ links: [{ trace_id: 'abc' }] })).toEqual([['body.links.0.trace_id', 'invalid_id']]);
    expect(problems({ windowing: { limit: 0 } })).toEqual([['body.windowing.limit', 'range']]);
  });
});


