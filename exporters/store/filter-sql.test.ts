// The filter in SQL (filter-sql.ts) against two oracles on a small hand-made set of stored rows: the
// result each query should give, worked out by hand below, and the JavaScript evaluation (filter.ts).
// Also which conditions stay in JavaScript, and the case folding SQL relies on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreDatabase } from './database.ts';
import { matchesFilter } from './filter.ts';
import { foldSql, planFilter } from './filter-sql.ts';
import { parseFilter, type Filter, type Problem } from './query-body.ts';
import { parseRecord } from './read-span.ts';
import { formatTimeNs } from '../../codec/record/index.ts';

const T1 = '11111111111111111111111111111111';
const REF = '0123456789abcdef0123456789abcdef';
/** Nanoseconds of second `s` after 2026-04-16T18:10:00Z. */
const ns = (s: number) => BigInt(1776363000 + s) * 1_000_000_000n;

interface Row {
  id: string;
  name: string;
  parent?: string;
  kind: number;
  status: number;
  session?: string;
  start: number;
  /** Members of the record's JSON text besides those above, by hand to hold exact number forms. */
  rest: string;
}

const KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT'];
const STATUS = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

/** The stored record (span-record.md, flat attributes): the row's fields, then `rest`. */
function recordOf(r: Row): string {
  const fields = {
    trace_id: T1, span_id: r.id, ...(r.parent ? { parent_id: r.parent } : {}), span_name: r.name, span_kind: KINDS[r.kind],
    start_time: formatTimeNs(ns(r.start)), end_time: formatTimeNs(ns(r.start + 1)), status_code: STATUS[r.status],
    ...(r.session ? { session_id: r.session } : {}),
  };
  return JSON.stringify(fields).slice(0, -1) + ',' + r.rest + '}';
}

// Five spans; the comments list what the conditions below look at.
const ROWS: Row[] = [
  { id: 'a', name: 'agent', kind: 3, status: 2, session: 's1', start: 10,
    rest: `"status_message":"BOOM","attributes":{"score":0.9,"label":"Alpha","list":["x","y",3],"ag.data.inputs.q":"hi","flag":true},"links":[{"trace_id":"${T1}","span_id":"0000000000000001"}],"references":[{"slug":"eval","version":"2"}]` },
  { id: 'b', name: 'llm', parent: 'a', kind: 0, status: 0, start: 20,
    rest: `"attributes":{"score":5,"label":"beta","list":[1,2],"ag.data.outputs":"x","flag":false,"weird\\"key":1,"a.b\\nc":"nl"},"links":[]` },
  { id: 'c', name: 'llm', parent: 'a', kind: 0, status: 1, start: 30,
    rest: `"attributes":{"score":"5","label":"\u212Aelvin","tags.created_at":"2026-04-16T10:00:00Z"}` },
  { id: 'd', name: 'chat', kind: 1, status: 0, start: 40,
    rest: `"attributes":{"label":"\u0130stanbul","score":5.0,"big":9007199254740993}` },
  { id: 'e', name: 'x', kind: 0, status: 0, start: 50,
    rest: `"references":[{"id":"01234567-89ab-cdef-0123-456789abcdef","slug":"other"}]` },
];

let dir: string;
let db: DatabaseSync;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-filter-sql-'));
  db = openStoreDatabase(join(dir, 'store.db'));
  const insert = db.prepare(`INSERT INTO spans (project, trace_id, span_id, parent_id, span_name, span_kind, status_code, session_id,
    start_ns, end_ns, created_at, record) VALUES ('', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`);
  for (const r of ROWS) insert.run(T1, r.id, r.parent ?? null, r.name, r.kind, r.status, r.session ?? null, ns(r.start), ns(r.start + 1), recordOf(r));
});
afterAll(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

function filter(value: unknown): Filter {
  const out: Problem[] = [];
  const parsed = parseFilter(value, ['body', 'filter'], out);
  if (out.length > 0) throw new Error(JSON.stringify(out));
  return parsed!;
}

/** Ids matching through SQL (plus the residual in JS), ids matching in JS alone, and whether SQL said it all. */
function run(value: unknown): { sql: string[]; js: string[]; exact: boolean } {
  const f = filter(value);
  const plan = planFilter(f);
  const where = plan.where.map((w) => ` AND (${w})`).join('');
  const rows = db.prepare(`SELECT span_id, record FROM spans WHERE project = ''${where} ORDER BY span_id`).all(...plan.params) as Array<{ span_id: string; record: string }>;
  const sql = rows.filter((r) => plan.residual === undefined || matchesFilter(plan.residual, parseRecord(r.record))).map((r) => r.span_id);
  const js = ROWS.filter((r) => matchesFilter(f, parseRecord(recordOf(r)))).map((r) => r.id);
  return { sql, js, exact: plan.residual === undefined };
}

const attr = (key: string, operator: string, value?: unknown, options?: unknown) =>
  ({ conditions: [{ field: 'attributes', key, operator, ...(value === undefined ? {} : { value }), ...(options ? { options } : {}) }] });

// [filter, ids by hand, said wholly in SQL]
const CASES: Array<[string, unknown, string[], boolean]> = [
  ['number equal by value, not a string', attr('score', 'is', 5), ['b', 'd'], true],
  ['string not equal to a number', attr('score', 'eq', '5'), ['c'], true],
  ['gt compares numbers only', attr('score', 'gt', 1), ['b', 'd'], true],
  ['is_not matches spans without the key', attr('score', 'neq', 5), ['a', 'c', 'e'], true],
  ['in over mixed types', attr('score', 'in', [0.9, '5']), ['a', 'c'], true],
  ['contains ignores case', attr('label', 'contains', 'LPH'), ['a'], true],
  ['contains with case_sensitive', attr('label', 'contains', 'LPH', { case_sensitive: true }), [], true],
  ['the Kelvin sign lowers to k', attr('label', 'startswith', 'k'), ['c'], true],
  ['... but not case-sensitively', attr('label', 'startswith', 'k', { case_sensitive: true }), [], true],
  ['the dotted capital I lowers to i', attr('label', 'startswith', 'i'), ['d'], true],
  ['endswith', attr('label', 'endswith', 'TA'), ['b'], true],
  ['empty contains and endswith match every string', attr('label', 'endswith', ''), ['a', 'b', 'c', 'd'], true],
  ['exact_match makes is', attr('label', 'contains', 'alpha', { exact_match: true }), [], true],
  ['a list element (string)', attr('list', 'contains', 'y'), ['a'], true],
  ['a list element (number)', attr('list', 'contains', 2), ['b'], true],
  ['exists on a prefix', attr('ag.data', 'exists'), ['a', 'b'], true],
  ['exists on a partial segment is not a prefix', attr('ag.dat', 'exists'), [], true],
  ['not_exists', attr('ag.data', 'not_exists'), ['c', 'd', 'e'], true],
  ['is with an object: containment', attr('ag', 'is', { data: { inputs: { q: 'hi' } } }), ['a'], true],
  ['booleans', attr('flag', 'is', false), ['b'], true],
  ['code-point order of strings', attr('label', 'gte', 'beta'), ['b', 'c', 'd'], true],
  ['btwn', attr('label', 'btwn', ['A', 'Z']), ['a'], true],
  ['ISO times as strings', attr('tags.created_at', 'gt', '2026-04-16T09:00:00Z'), ['c'], true],
  ['btwn of mixed types matches nothing', attr('score', 'btwn', [1, 'z']), [], true],
  ['a key with a newline', attr('a.b\nc', 'is', 'nl'), ['b'], true],
  ['links in', { conditions: [{ field: 'links', operator: 'in', value: [{ trace_id: T1 }] }] }, ['a'], true],
  ['links not_exists', { conditions: [{ field: 'links', operator: 'not_exists' }] }, ['b', 'c', 'd', 'e'], true],
  ['references by slug and version', { conditions: [{ field: 'references', operator: 'in', value: [{ slug: 'eval', version: '2' }] }] }, ['a'], true],
  ['references, another version', { conditions: [{ field: 'references', operator: 'in', value: [{ slug: 'eval', version: '3' }] }] }, [], true],
  ['status_message contains', { conditions: [{ field: 'status_message', operator: 'contains', value: 'oo' }] }, ['a'], true],
  ['session_id not_in', { conditions: [{ field: 'session_id', operator: 'not_in', value: ['s1'] }] }, ['b', 'c', 'd', 'e'], true],
  ['span_kind', { conditions: [{ field: 'span_kind', value: 'SPAN_KIND_CLIENT' }] }, ['a'], true],
  ['status_code in', { conditions: [{ field: 'status_code', operator: 'in', value: ['STATUS_CODE_OK', 'STATUS_CODE_ERROR'] }] }, ['a', 'c'], true],
  ['roots', { conditions: [{ field: 'parent_id', operator: 'is' }] }, ['a', 'd', 'e'], true],
  ['start_time btwn', { conditions: [{ field: 'start_time', operator: 'btwn', value: [formatTimeNs(ns(20)), formatTimeNs(ns(40))] }] }, ['b', 'c', 'd'], true],
  ['or', { operator: 'or', conditions: [attr('score', 'is', 5), attr('label', 'contains', 'alpha')] }, ['a', 'b', 'd'], true],
  ['not', { operator: 'not', conditions: [{ operator: 'or', conditions: [attr('score', 'is', 5), attr('label', 'contains', 'alpha')] }] }, ['c', 'e'], true],
  ['nand', { operator: 'nand', conditions: [{ field: 'span_name', value: 'llm' }, attr('score', 'is', 5)] }, ['a', 'c', 'd', 'e'], true],
  ['nor', { operator: 'nor', conditions: [{ field: 'span_name', value: 'llm' }, attr('flag', 'exists')] }, ['d', 'e'], true],
  // What stays in JavaScript:
  ['a number beyond 2^53', attr('big', 'is', 9007199254740993n), ['d'], false],
  ['a key with a double quote', attr('weird"key', 'exists'), ['b'], false],
  ['a list value', attr('list', 'is', ['x', 'y', 3]), ['a'], false],
  ['case-insensitive with a non-ASCII value', attr('label', 'contains', 'STANBUL\u0307'), [], false],
  ['references by id', { conditions: [{ field: 'references', operator: 'in', value: [{ id: REF }] }] }, ['e'], false],
  ['an and splits: the SQL part and a residual', { conditions: [{ field: 'span_name', value: 'chat' }, attr('big', 'gt', 9007199254740992n)] }, ['d'], false],
  ['an or with a residual part goes whole to JavaScript', { operator: 'or', conditions: [{ field: 'span_name', value: 'x' }, attr('weird"key', 'is', 1)] }, ['b', 'e'], false],
];

describe('filters in SQL (read-api.md §6.2)', () => {
  for (const [name, value, ids, exact] of CASES) {
    it(name, () => {
      const got = run(value);
      expect(got.sql).toEqual(ids);
      expect(got.js).toEqual(ids);
      expect(got.exact).toBe(exact);
    });
  }

  it('a nand or nor of nothing matches everything, as an empty filter does', () => {
    expect(run({ operator: 'nor', conditions: [] }).sql).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('case folding', () => {
  it('SQL folds every code point to the ASCII that JavaScript lower case gives it, and no other', () => {
    const fold = db.prepare(`SELECT json_group_array(${foldSql('value')}) AS folded FROM json_each(?)`);
    const wrong: string[] = [];
    const chars: string[] = [];
    const check = () => {
      const folded = JSON.parse(String(fold.get(JSON.stringify(chars))!.folded)) as string[];
      chars.forEach((c, i) => {
        const js = c.toLowerCase(), sql = folded[i];
        // eslint-disable-next-line no-control-regex
        const ascii = (s: string) => s.replace(/[^\x00-\x7f]+/g, '\u0080');
        if (ascii(js) !== ascii(sql)) wrong.push(c.codePointAt(0)!.toString(16));
      });
      chars.length = 0;
    };
    for (let cp = 1; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      chars.push(String.fromCodePoint(cp));
      if (chars.length === 4096) check();
    }
    check();
    expect(wrong).toEqual([]);
  });
});
