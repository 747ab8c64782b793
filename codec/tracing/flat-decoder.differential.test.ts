// The flat-body decoder against the general path (JSON parse, the body's top-level checks, flatten,
// validate) on random bodies written as text, the way clients write them: valid spans and every kind of
// near-miss (ids in each accepted and refused form, times in each form, escapes, multi-byte text,
// repeated members and keys, null members, nested attributes, members the decoder does not read,
// numbers a double cannot hold, whitespace, broken syntax). Whenever the decoder answers, the general
// path must accept every span and produce the very same spans; whenever it gives up, the general path
// decides alone, so a give-up is never wrong, only slower. The counts at the end make sure both
// outcomes are frequent enough for the comparison to say something.
import { describe, expect, it } from 'vitest';
import type { WorkingBatch } from '../../model/batch.ts';
import { parseJsonBytes } from '../json/parse.ts';
import { createLogger } from '../../pipeline/log.ts';
import type { Span } from '../../model/span.ts';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { factory as flattenFactory } from '../../processors/flatten/factory.ts';
import { factory as validateFactory } from '../../processors/validate/factory.ts';
import { tracingBodyOf } from '../../receivers/http/tracing-body.ts';
import { decodeFlatSpans } from './flat-decoder.ts';

const ctx = { id: 'test', logger: createLogger({ write: () => {} }) };
const flatten = flattenFactory.create({}, ctx);
const validate = validateFactory.create({}, ctx);
const LIMITS = { maxSpans: 8, maxDepth: 64 };
/** Nesting limits around the depths the decoder reads itself (6) and nested attribute values reach. */
const DEPTHS = [6, 7, 8, 9, 64, 64, 64];

/** The general path's outcome: its spans when every span was accepted, else undefined. */
function general(bytes: Buffer, limits: typeof LIMITS): Span[] | undefined {
  const parsed = parseJsonBytes(bytes, limits.maxDepth);
  if (!parsed.ok) return undefined;
  const body = tracingBodyOf(parsed.value);
  if (Array.isArray(body) || body.form !== 'flat' || body.spans.length > limits.maxSpans) return undefined;
  const batch: WorkingBatch = { origin: 'tracing', tracing: body, spans: [], rejections: [] };
  flatten.process(batch);
  validate.process(batch);
  if (batch.rejections.length > 0 || batch.spans.length !== body.spans.length) return undefined;
  return batch.spans;
}

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
/** Raw JSON texts, valid or not for their member. */
const TRACE_IDS = [
  `"${T}"`, `"${T}"`, `"${T}"`, `"${T.toUpperCase()}"`, '"5bf92f35-77b3-4da6-a3ce-929d0e0e4736"', `"0x${T}"`,
  `"urn:uuid:{${T}}"`, `"${'0'.repeat(32)}"`, `"${T.slice(1)}"`, '"4bf92f3577b34da6a3ce929d0e0e473\\u0036"', '42', '{}',
];
const PARENT_IDS = [
  '"a1b2c3d4e5f60718"', '"a1b2c3d4e5f60718"', '"A1B2C3D4E5F60718"', '"0x00f067aa0ba902b7"', `"${'0'.repeat(16)}"`,
  `"${T}"`, '"a1b2c3d4e5f6071z"', '""', '7', 'null',
];
const TIMES = [
  '"1776363498123456789"', '"1776363498123"', '"1776363498"', '"0001776363498"', '"1776363498123456"',
  '"2026-04-16T18:18:18.123Z"', '"2026-04-16 18:18:18+02:00"', '"2026-02-30T00:00:00Z"', '"17763634981"', '"-1"',
  '1776363498', '1776363498123', '1776363498123456789', '1776363498.5', '-5', '1.776363498e9', '"177636349\\u0038"',
  '""', 'true',
];
const NAMES = [
  '"chat gpt-4o-mini"', '"tool-7"', '""', '"caf\u00e9 \u2603"', '"line\\nbreak \\"quoted\\" \\u00e9 \\ud83d\\ude00"',
  '"bad \\x escape"', '"raw\ttab"', '12', 'null',
];
const KINDS = ['"SPAN_KIND_CLIENT"', '"SPAN_KIND_SERVER"', '"SPAN_KIND_INTERNAL"', '"CLIENT"', '3', 'null'];
const CODES = ['"STATUS_CODE_OK"', '"STATUS_CODE_ERROR"', '"STATUS_CODE_UNSET"', '"OK"', '1'];
const TYPES = ['"chat"', '"tool"', '"agent"', '"llm"', '"bogus"', '1'];
const TRACE_TYPES = ['"invocation"', '"annotation"', '"other"'];
const STRINGS = ['"s-1"', '"user-\u00e9"', '"\\u0041BC"', '5', '""'];
const KEYS = [
  'ag.type.span', 'gen_ai.request.model', 'ag.data.inputs.prompt.0.content', 'index', 'a', 'a.b', '',
  '__proto__', '0', '12', '007', 'caf\u00e9', 'k\\"q', 'k\\u0041', 'ag.metrics.tokens.incremental.prompt',
];
/** Attribute values the decoder reads, then the ones it leaves to the general path (wide integers,
 *  out-of-range numbers, nested values) and broken ones. */
const SCALARS = [
  '"user"', '"gpt-4o-mini"', '"What is the weather in city number 3?"', '"x\\ny"', '"\u2603 snow"', '42', '0', '-0', '-17',
  '3.25', '1e3', '2E-2', '123456789012345', 'true', 'false', 'null',
];
/** Nested values: flattened as flatten does, within the nesting limit. */
const NESTED = [
  '{"nested": 1}', '[1, 2]', '[]', '{}', '{"a": {"b": [1, {"c": "x\\"}"}]}, "d": null}', '[[1], {"0": 1, "z": 2}]',
  '{"prompt": [{"role": "user", "content": "hi ]}"}], "n": 12345678901234567}', '{"a": 1, "a": {"b": 2}}',
  '{"x": {"y": {"z": {"w": 1}}}}', '{"bad": 01}', '[1, 2', '{"k": "v"]',
];
const VALUES = [...SCALARS, ...NESTED, '12345678901234567', '9007199254740993', '1e400', '01', '1.', '-', 'tru'];

function oneOf(random: () => number, items: readonly string[]): string {
  return pickWith(random, items);
}

/** Whitespace between tokens, usually none (what JSON.stringify writes). */
function ws(random: () => number): string {
  return random() < 0.85 ? '' : pickWith(random, [' ', '\n', '\t ', '\r\n  ']);
}

function object(random: () => number, members: Array<[string, string]>): string {
  return '{' + ws(random) + members.map(([k, v]) => `"${k}"${ws(random)}:${ws(random)}${v}`).join(',' + ws(random)) + ws(random) + '}';
}

function attributes(random: () => number, usual: boolean): string {
  const n = usual ? 3 + Math.floor(random() * 4) : Math.floor(random() * 5);
  const members: Array<[string, string]> = [];
  for (let i = 0; i < n; i++) {
    // A usual list has the same keys in the same order span after span (what the templates are for).
    const key = usual ? KEYS[i] : oneOf(random, KEYS);
    const value = usual ? (random() < 0.7 ? SCALARS[i % 3] : oneOf(random, SCALARS)) : oneOf(random, random() < 0.7 ? SCALARS : VALUES);
    members.push([key, value]);
  }
  return object(random, members);
}

function events(random: () => number, usual: boolean): string {
  const n = Math.floor(random() * 3);
  const list: string[] = [];
  for (let i = 0; i < n; i++) {
    const members: Array<[string, string]> = [];
    if (usual || random() < 0.9) members.push(['name', usual ? '"gen_ai.choice"' : oneOf(random, [...NAMES, 'null'])]);
    if (usual || random() < 0.9) members.push(['timestamp', usual ? TIMES[0] : oneOf(random, [...TIMES, 'null'])]);
    if (random() < 0.7) members.push(['attributes', usual ? attributes(random, true) : oneOf(random, [attributes(random, false), 'null', '[]'])]);
    if (!usual && random() < 0.1) members.push(['otlp', '{"dropped_attributes_count": 1}']);
    if (random() < 0.3) members.reverse();
    list.push(object(random, members));
  }
  return '[' + list.join(',') + ']';
}

/** A valid span, members in the usual order. */
function usualSpan(random: () => number, i: number): Array<[string, string]> {
  const members: Array<[string, string]> = [];
  const add = (k: string, v: string) => members.push([k, v]);
  add('trace_id', TRACE_IDS[0]);
  add('span_id', `"${(i + 1).toString(16).padStart(16, '0')}"`);
  if (random() < 0.7) add('parent_id', PARENT_IDS[0]);
  if (random() < 0.9) add('span_name', oneOf(random, NAMES.slice(0, 5)));
  if (random() < 0.8) add('span_kind', KINDS[0]);
  add('start_time', oneOf(random, TIMES.slice(0, 7)));
  add('end_time', TIMES[0]);
  if (random() < 0.7) add('status_code', CODES[0]);
  if (random() < 0.9) add('attributes', attributes(random, true));
  if (random() < 0.7) add('events', events(random, true));
  return members;
}

/** The rarer members, read by validate's own parsers: valid and refused values. */
const RARE: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['links', [
    '[]', `[{"trace_id": "${T}", "span_id": "a1b2c3d4e5f60718"}]`,
    `[{"trace_id": "${T}", "span_id": "A1B2C3D4E5F60718", "attributes": {"k": 1, "n": {"m": 2}}, "otlp": {"trace_state": "x"}}]`,
    '[{"trace_id": "bad", "span_id": "a1b2c3d4e5f60718"}]', '{}',
  ]],
  ['references', [
    '[]', '[{"id": "5bf92f35-77b3-4da6-a3ce-929d0e0e4736", "slug": "app", "version": "3", "attributes": {"a": true}}]',
    '[{"slug": "only"}]', '[{"slug": 5}]', '[{"id": "nope"}]',
  ]],
  ['resource', ['{"service.name": "svc", "n": {"a": [1, {"b": 2}]}}', '{}', '{"1": "x", "a": 2}', '[]', '"x"']],
  ['scope', ['{"name": "lib", "version": "1.0"}', '{"name": "lib", "attributes": {"a": 1}}', '{"version": "1"}', '{"name": 5}']],
  ['otlp', ['{"trace_state": "k=v", "flags": 1}', '{"dropped_attributes_count": 2}', '{"flags": -1}', '{"unknown": 1}', '{}', '5']],
  // Members validate does not read; the escaped one spells trace_id.
  ['extra', ['[]', '{"a": [1, 2]}', '"s"', '12345678901234567', '{"bad": 01}', 'null']],
  ['__proto__', ['{"a": 1}', '7']],
  ['trace_idx', ['"x"']],
  ['trace\\u005fid', [`"${T}"`, '"bad"']],
];

/** Members a change may add, with their pools. */
const POOLS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['trace_id', TRACE_IDS], ['span_id', PARENT_IDS], ['parent_id', PARENT_IDS], ['span_name', NAMES], ['span_kind', KINDS],
  ['start_time', TIMES], ['end_time', TIMES], ['status_code', CODES], ['status_message', STRINGS], ['session_id', STRINGS],
  ['user_id', STRINGS], ['span_type', TYPES], ['trace_type', TRACE_TYPES],
];

/** One change to a valid span, so that the comparison is about that change. */
function change(random: () => number, members: Array<[string, string]>): void {
  const at = Math.floor(random() * members.length);
  switch (Math.floor(random() * 9)) {
    case 0: { // a member from its pool, valid or not
      const [k, pool] = pickWith(random, POOLS);
      const v = oneOf(random, pool);
      const j = members.findIndex(([name]) => name === k);
      if (j >= 0) members[j] = [k, v];
      else members.push([k, v]);
      return;
    }
    case 1: members.push([members[at][0], oneOf(random, [members[at][1], 'null', ...TIMES.slice(0, 2)])]); return; // repeated
    case 2: members[at] = [members[at][0], 'null']; return;
    case 3: {
      const [k, pool] = pickWith(random, RARE);
      members.push([k, oneOf(random, pool)]);
      return;
    }
    case 4: members.sort(() => random() - 0.5); return;
    case 5: members.push(['attributes', attributes(random, false)]); return;
    case 6: members.push(['events', events(random, false)]); return;
    case 7: {
      const special = ['null', '[]', '{"a": {"b": 1}}', '{"a.b": 1, "a": {"b": 2}}', '{"a": {"b": 2}, "a.b": 1}', '{"a": 1, "b": 2, "a": 3}', '{"a": 1, "a": null}', '{"a": 1, "0": 2}', '{"b": 1, "12": 2, "007": 3}'];
      members.push(['attributes', oneOf(random, special)]);
      return;
    }
    default: members.push(['span_name', oneOf(random, ['"raw\ttab"', '"raw\u0001ctl"', '"ok"'])]); return;
  }
}

/** A valid span, or a valid span with one change. */
function span(random: () => number, i: number, usual: boolean): string {
  const members = usualSpan(random, i);
  if (!usual) change(random, members);
  return object(random, members);
}

function body(random: () => number): string {
  const n = Math.floor(random() * 10);
  // At most one span is changed, so that whether the body is answered depends on that change alone.
  const changed = random() < 0.85 ? Math.floor(random() * n) : -1;
  const spans: string[] = [];
  for (let i = 0; i < n; i++) spans.push(span(random, random() < 0.02 ? 0 : i, i !== changed));
  let text = ws(random) + '{' + ws(random) + '"spans"' + ws(random) + ':' + ws(random) + '[' + spans.join(',' + ws(random)) + ']' + ws(random) + '}' + ws(random);
  const r = random();
  if (r < 0.02) text += 'x';
  else if (r < 0.04) text = text.replace('{', '{"other": 1, ');
  else if (r < 0.05) text = text.slice(0, Math.floor(random() * text.length));
  return text;
}

/** Spans with `span_name` absent get a random name on both paths: compared by form, then blanked. */
function withoutRandomNames(spans: Span[], sent: string[]): Span[] {
  return spans.map((s, i) => (sent[i] === undefined && /^[0-9a-f]{12}$/.test(s.name) ? { ...s, name: '' } : s));
}

describe('the flat-body decoder against the general path', () => {
  it('answers only with what the general path accepts, span for span (20,000 random bodies)', () => {
    const random = seededRandom(520);
    let answered = 0;
    let gaveUp = 0;
    let spansCompared = 0;
    for (let round = 0; round < 20_000; round++) {
      const text = body(random);
      const bytes = Buffer.from(text);
      const limits = { ...LIMITS, maxDepth: pickWith(random, DEPTHS) };
      const fast = decodeFlatSpans(bytes, limits);
      if (process.env.FD_STATS) console.log(fast === undefined ? 'gave-up' : 'answered');
      if (fast === undefined) {
        gaveUp++;
        continue;
      }
      answered++;
      const expected = general(bytes, limits);
      expect(expected, text).toBeDefined();
      const names = (JSON.parse(text) as { spans: Array<{ span_name?: string | null }> }).spans.map((s) => s.span_name ?? undefined);
      expect(withoutRandomNames(fast, names as string[]), text).toEqual(withoutRandomNames(expected!, names as string[]));
      spansCompared += fast.length;
    }
    expect(answered).toBeGreaterThan(6000);
    expect(gaveUp).toBeGreaterThan(6000);
    expect(spansCompared).toBeGreaterThan(20_000);
  });

  it('answers for the benchmark\'s kind of body and gives up at the limits', () => {
    const sp = (i: number) => `{"trace_id":"${T}","span_id":"${(i + 1).toString(16).padStart(16, '0')}","start_time":"1776363498","end_time":"1776363499"}`;
    const list = (n: number) => Buffer.from(`{"spans":[${Array.from({ length: n }, (_, i) => sp(i)).join(',')}]}`);
    expect(decodeFlatSpans(list(8), LIMITS)).toHaveLength(8);
    expect(decodeFlatSpans(list(0), LIMITS)).toEqual([]);
    // One more span than max_spans_per_request: the general path's 413.
    expect(decodeFlatSpans(list(9), LIMITS)).toBeUndefined();
    // A nesting limit below what the decoder reads: the general path checks the depth.
    expect(decodeFlatSpans(list(1), { maxSpans: 8, maxDepth: 5 })).toBeUndefined();
    expect(decodeFlatSpans(list(1), { maxSpans: 8, maxDepth: 6 })).toHaveLength(1);
    // Not UTF-8.
    const bad = Buffer.from(`{"spans":[{"trace_id":"${T}","span_id":"0000000000000001","span_name":"\xff","start_time":"1776363498","end_time":"1776363499"}]}`, 'latin1');
    expect(decodeFlatSpans(bad, LIMITS)).toBeUndefined();
    // The same span id twice: validate's de-duplication decides.
    expect(decodeFlatSpans(Buffer.from(`{"spans":[${sp(0)},${sp(0)}]}`), LIMITS)).toBeUndefined();
  });
});
