// S7: every slot of the unflattened `ag` tree is checked against the layout (ag-namespace.md §3.1).
// What does not fit is quarantined (§3.2) in slot order; a null at a slot or typed leaf means absent.
import type { Tree, TreeMap } from '../../model/attributes/trie.ts';
import { isSpanType } from '../../model/span.ts';
import { isFiniteNumber } from './keys.ts';
import type { Cleaned } from './layout.ts';
import type { Quarantine } from './quarantine.ts';
import { cleanReferences } from './references.ts';

/** Marks a leaf that must be quarantined; DROP a null leaf that simply goes away. */
const BAD: unique symbol = Symbol('bad');
const DROP: unique symbol = Symbol('drop');
type LeafResult = Tree | typeof BAD | typeof DROP;

function numberLeaf(v: Tree): LeafResult {
  if (v === null) return DROP;
  return isFiniteNumber(v) ? v : BAD;
}

function flagLeaf(v: Tree): LeafResult {
  if (v === null) return DROP;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v === 0 || v === 0n) return false;
  if (v === 1 || v === 1n) return true;
  return BAD;
}

interface Frame {
  map: TreeMap;
  keys: string[];
  i: number;
  name: string;
}

/** True when the member names are exactly `0..n-1`: flat keys would read such an object back as an array. */
function isDense(map: TreeMap): boolean {
  const n = map.size;
  if (n === 0) return false;
  for (const k of map.keys()) {
    if (k.length === 0 || k.length > 10 || (k.length > 1 && k.charCodeAt(0) === 48)) return false;
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    if (Number(k) >= n) return false;
  }
  return true;
}

function pathOf(base: string[], stack: Frame[], upTo: number, last: string): string[] {
  const path = base.slice();
  for (let j = 1; j <= upTo; j++) path.push(stack[j].name);
  path.push(last);
  return path;
}

/**
 * Checks every leaf below `root` (nested Maps allowed, arrays count as leaves) depth-first in member order;
 * bad leaves are quarantined one by one at `base.<path>` and removed. Iterative: a key with very many
 * segments makes a very deep tree.
 *
 * Removing leaves can leave an object that the flat form cannot carry: an empty one (it vanishes, which
 * can turn its parent into the next case) or one whose remaining members are named `0..n-1` (it would read
 * back as an array, which the next run would reject). Such an object is emptied into quarantine member by
 * member, so the output is stable and nothing is lost.
 */
function cleanLeaves(root: TreeMap, base: string[], fix: (v: Tree) => LeafResult, q: Quarantine): void {
  const stack: Frame[] = [{ map: root, keys: Array.from(root.keys()), i: 0, name: '' }];
  let removed = false;
  while (stack.length > 0) {
    const depth = stack.length - 1;
    const f = stack[depth];
    if (f.i >= f.keys.length) {
      if (removed && isDense(f.map)) {
        for (const [k, v] of f.map) q.add(pathOf(base, stack, depth, k), v);
        f.map.clear();
      }
      stack.pop();
      if (depth > 0 && f.map.size === 0) {
        stack[depth - 1].map.delete(f.name);
        removed = true;
      }
      continue;
    }
    const k = f.keys[f.i++];
    const v = f.map.get(k) as Tree;
    if (v instanceof Map) {
      stack.push({ map: v, keys: Array.from(v.keys()), i: 0, name: k });
      continue;
    }
    const r = fix(v);
    if (r === v) continue;
    if (r === DROP) { f.map.delete(k); removed = true; continue; }
    if (r === BAD) {
      q.add(pathOf(base, stack, depth, k), v);
      f.map.delete(k);
      removed = true;
      continue;
    }
    f.map.set(k, r);
  }
}

/** A Map slot: kept; null: absent; anything else quarantined at `path`. */
function objectSlot(v: Tree | undefined, path: string[], q: Quarantine): TreeMap | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Map) return v;
  q.add(path, v);
  return undefined;
}

const NUMBER_MEMBERS = ['total', 'count', 'value'];

/** duration/errors entry value: a number, or an object holding one under total, count or value. */
function scalarMetric(v: Tree, path: string[], q: Quarantine): number | bigint | undefined {
  if (v === null) return undefined;
  if (isFiniteNumber(v)) return v;
  if (v instanceof Map) {
    for (const name of NUMBER_MEMBERS) {
      const n = v.get(name);
      if (isFiniteNumber(n)) return n;
    }
  }
  q.add(path, v);
  return undefined;
}

function cleanScalarMetric(entry: Tree | undefined, name: string, c: Cleaned, q: Quarantine): void {
  const m = objectSlot(entry, ['metrics', name], q);
  if (m === undefined) return;
  let inc: number | bigint | undefined;
  let cum: number | bigint | undefined;
  const i = m.get('incremental');
  if (i !== undefined) inc = scalarMetric(i, ['metrics', name, 'incremental'], q);
  const cu = m.get('cumulative');
  if (cu !== undefined) cum = scalarMetric(cu, ['metrics', name, 'cumulative'], q);
  for (const [k, v] of m) if (k !== 'incremental' && k !== 'cumulative') q.add(['metrics', name, k], v);
  if (name === 'duration') { c.durationIncremental = inc; c.durationCumulative = cum; }
  else { c.errorsIncremental = inc; c.errorsCumulative = cum; }
}

function cleanTreeMetric(entry: Tree | undefined, name: string, q: Quarantine): [TreeMap?, TreeMap?] {
  const m = objectSlot(entry, ['metrics', name], q);
  if (m === undefined) return [];
  const inc = objectSlot(m.get('incremental'), ['metrics', name, 'incremental'], q);
  if (inc !== undefined) cleanLeaves(inc, ['metrics', name, 'incremental'], numberLeaf, q);
  const cum = objectSlot(m.get('cumulative'), ['metrics', name, 'cumulative'], q);
  if (cum !== undefined) cleanLeaves(cum, ['metrics', name, 'cumulative'], numberLeaf, q);
  for (const [k, v] of m) if (k !== 'incremental' && k !== 'cumulative') q.add(['metrics', name, k], v);
  return [inc, cum];
}

function cleanType(t: TreeMap, c: Cleaned, q: Quarantine): void {
  const span = t.get('span');
  if (span !== undefined && span !== null) {
    if (isSpanType(span)) c.typeSpan = span;
    else q.add(['type', 'span'], span);
  }
  const trace = t.get('trace');
  if (trace !== undefined && trace !== null) {
    if (trace === 'invocation' || trace === 'annotation') c.typeTrace = trace;
    else if (trace !== 'unknown') q.add(['type', 'trace'], trace);
  }
  for (const [k, v] of t) if (k !== 'span' && k !== 'trace') q.add(['type', k], v);
}

const DATA_KNOWN = new Set(['parameters', 'inputs', 'outputs', 'internals']);

function cleanData(d: TreeMap, c: Cleaned, q: Quarantine): void {
  c.parameters = objectSlot(d.get('parameters'), ['data', 'parameters'], q);
  c.inputs = objectSlot(d.get('inputs'), ['data', 'inputs'], q);
  const out = d.get('outputs');
  if (out !== undefined && out !== null) { c.outputs = out; c.hasOutputs = true; }
  c.internals = objectSlot(d.get('internals'), ['data', 'internals'], q);
  for (const [k, v] of d) if (!DATA_KNOWN.has(k)) q.add(['data', k], v);
}

const METRICS_KNOWN = new Set(['duration', 'errors', 'tokens', 'costs']);

function cleanMetrics(m: TreeMap, c: Cleaned, q: Quarantine): void {
  cleanScalarMetric(m.get('duration'), 'duration', c, q);
  cleanScalarMetric(m.get('errors'), 'errors', c, q);
  [c.tokensIncremental, c.tokensCumulative] = cleanTreeMetric(m.get('tokens'), 'tokens', q);
  [c.costsIncremental, c.costsCumulative] = cleanTreeMetric(m.get('costs'), 'costs', q);
  for (const [k, v] of m) if (!METRICS_KNOWN.has(k)) q.add(['metrics', k], v);
}

/** `ag.session` / `ag.user`: only `id`, a string (a number becomes its decimal text). */
function identity(entry: Tree | undefined, name: string, q: Quarantine): string | undefined {
  const m = objectSlot(entry, [name], q);
  if (m === undefined) return undefined;
  let id: string | undefined;
  for (const [k, v] of m) {
    if (k !== 'id') { q.add([name, k], v); continue; }
    if (typeof v === 'string') id = v;
    else if (isFiniteNumber(v)) id = String(v);
    else if (v !== null) q.add([name, 'id'], v);
  }
  return id;
}

function cleanSelector(s: TreeMap, q: Quarantine): void {
  let removed = false;
  for (const [k, v] of s) {
    if (typeof v === 'string') continue;
    if (v !== null) q.add(['selector', k], v);
    s.delete(k);
    removed = true;
  }
  // As in cleanLeaves: members left named 0..n-1 would read back as an array.
  if (removed && isDense(s)) {
    for (const [k, v] of s) q.add(['selector', k], v);
    s.clear();
  }
}

/** Slots S7 knows, so unknown `ag.<key>`s can be told apart (and quarantined last, in input order). */
const TOP_KNOWN = new Set([
  'type', 'data', 'metrics', 'references', 'session', 'user', 'flags', 'tags', 'meta', 'exception', 'selector',
  'unsupported',
]);

/** Cleans the `ag` subtree (the Map below the `ag` key) into `c`, quarantining in slot order. */
export function cleanTree(ag: TreeMap, c: Cleaned, q: Quarantine): void {
  const type = objectSlot(ag.get('type'), ['type'], q);
  if (type !== undefined) cleanType(type, c, q);
  const data = objectSlot(ag.get('data'), ['data'], q);
  if (data !== undefined) cleanData(data, c, q);
  const metrics = objectSlot(ag.get('metrics'), ['metrics'], q);
  if (metrics !== undefined) cleanMetrics(metrics, c, q);
  const refs = objectSlot(ag.get('references'), ['references'], q);
  if (refs !== undefined) c.references = cleanReferences(refs, q);
  c.sessionId = identity(ag.get('session'), 'session', q);
  c.userId = identity(ag.get('user'), 'user', q);
  const flags = objectSlot(ag.get('flags'), ['flags'], q);
  if (flags !== undefined) { cleanLeaves(flags, ['flags'], flagLeaf, q); c.flags = flags; }
  const tags = objectSlot(ag.get('tags'), ['tags'], q);
  if (tags !== undefined) { cleanLeaves(tags, ['tags'], flagLeaf, q); c.tags = tags; }
  c.meta = objectSlot(ag.get('meta'), ['meta'], q);
  c.exception = objectSlot(ag.get('exception'), ['exception'], q);
  const selector = objectSlot(ag.get('selector'), ['selector'], q);
  if (selector !== undefined) { cleanSelector(selector, q); c.selector = selector; }
  const unsupported = ag.get('unsupported');
  if (unsupported instanceof Map) c.unsupported = unsupported;
  else if (Array.isArray(unsupported)) {
    // Flat keys cannot say "an object whose members are 0..n-1": such members read back as an array, and
    // a quarantine can create them (`ag.0`). Keeping the array as index-named members makes that stable.
    const m: TreeMap = new Map();
    for (let i = 0; i < unsupported.length; i++) m.set(String(i), unsupported[i]);
    c.unsupported = m;
  } else if (unsupported !== undefined && unsupported !== null) {
    c.unsupported = new Map([['_unsupported', unsupported]]);
  }
  for (const [k, v] of ag) if (!TOP_KNOWN.has(k)) q.add([k], v);
}
