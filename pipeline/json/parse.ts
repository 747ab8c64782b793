// JSON text -> values, keeping integers beyond +-(2^53-1) exact as `bigint` (span-record.md, ingest-api.md
// §4.4: 19-digit nanosecond timestamps must not be rounded). The common body has no such number, so the
// exact path runs only when a scan says it may matter; otherwise this is a plain JSON.parse. Two exact
// paths: `parseJson(text, true)`, a reviver reading each number's source text (Node 24), and, for raw
// bytes whose wide tokens the scan located, the cheaper marked-token parse further down.
import { isUtf8 } from 'node:buffer';
import { scanJson } from './depth.ts';
import { quickScan } from './wasm-scan.ts';

/** The third reviver argument of Node 24's JSON.parse (source text access); absent for objects/arrays. */
interface ReviverContext {
  source?: string;
}

const NUMBER_SOURCE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact integer a JSON number literal denotes, or undefined when the literal is not an integer.
 * `1.5e3` -> 1500n, `12e-1` -> undefined.
 */
export function exactInteger(source: string): bigint | undefined {
  const m = NUMBER_SOURCE.exec(source);
  if (!m) return undefined;
  let digits = m[2] + (m[3] ?? '');
  let exponent = (m[4] ? Number(m[4]) : 0) - (m[3]?.length ?? 0);
  if (exponent < 0) {
    // The last -exponent digits must all be zero for the value to be an integer.
    const cut = digits.length + exponent;
    const tail = cut > 0 ? digits.slice(cut) : digits;
    if (!/^0*$/.test(tail)) return undefined;
    digits = cut > 0 ? digits.slice(0, cut) : '0';
    exponent = 0;
  }
  // A double tops out near 1.8e308: a literal far beyond that is no integer worth building.
  if (exponent > 1000) return undefined;
  let value = BigInt(digits);
  if (exponent > 0) value *= 10n ** BigInt(exponent);
  return m[1] ? -value : value;
}

function exactReviver(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    const source = context?.source;
    if (source !== undefined) {
      const exact = exactInteger(source);
      if (exact !== undefined) return exact;
    }
  }
  return value;
}

/**
 * Parses JSON text. With `exactNumbers`, integers outside the safe range come back as `bigint`; other
 * numbers are as JSON.parse gives them. Throws SyntaxError on invalid JSON, like JSON.parse.
 */
export function parseJson(text: string, exactNumbers: boolean): unknown {
  return exactNumbers
    ? JSON.parse(text, exactReviver as (this: unknown, key: string, value: unknown) => unknown)
    : JSON.parse(text);
}

export type ParsedJson =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'empty' | 'too_deep' | 'invalid_utf8' | 'invalid_json'; message: string };

/**
 * Raw request bytes -> value, in the order the ingest API checks them (ingest-api.md §2.1): nesting depth
 * on the raw text first (no object is built for a body that is too deep), then UTF-8, then JSON.
 * Never throws on input.
 */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number): ParsedJson {
  if (bytes.length === 0) return { ok: false, problem: 'empty', message: 'Field required' };
  // The SIMD scan costs ~a quarter of scanJson; scanJson stays for where it cannot run.
  const scan = quickScan(bytes, maxDepth) ?? scanJson(bytes, maxDepth);
  if (scan.tooDeep) {
    return { ok: false, problem: 'too_deep', message: `JSON nesting is deeper than max_nesting_depth (${maxDepth})` };
  }
  if (!isUtf8(bytes)) return { ok: false, problem: 'invalid_utf8', message: 'Body is not valid UTF-8' };
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (scan.wideNumbers === undefined) return { ok: true, value: JSON.parse(buf.toString('utf8')) };
    const marked = parseMarked(buf, scan.wideNumbers);
    return { ok: true, value: marked !== UNDECIDED ? marked : parseJson(buf.toString('utf8'), true) };
  } catch (error) {
    return { ok: false, problem: 'invalid_json', message: `JSON decode error: ${(error as Error).message}` };
  }
}

// ---- the fast exact path -------------------------------------------------------------------------
// The reviver costs several times a plain parse (V8 builds a source snapshot for every value). When the
// scan has located the few wide number tokens, a cheaper way gives the same result: quote each one
// with a marker in front (`1776363499123456789` -> `"\u0001" + digits`), parse plainly, then walk the
// result and turn marked strings back into numbers (bigint when beyond the safe range).
//
// Why a marked string cannot be confused with a client's string: U+0001 can only reach a parsed string
// through the escape `\u0001` (raw control characters are invalid JSON), and this path is not taken
// when the raw text contains that escape. Why it cannot turn invalid JSON into valid JSON: each token is
// checked against the JSON number grammar first, and a marked string found as an object key (where a
// number is not allowed) is reported as the syntax error it was.

const MARK = 0x01;
/** parseMarked's "use the reviver instead". */
const UNDECIDED: unique symbol = Symbol('undecided');
const MARK_ESCAPE = Buffer.from('\\u0001');
/** What goes before a marked token (`"\u0001`) and after it (`"`). */
const MARK_OPEN = Buffer.from('"\\u0001');
const QUOTE = 0x22;

/** The number a JSON number literal denotes: exact (bigint) when an integer beyond the safe range. */
function numberOf(source: string): number | bigint {
  const n = Number(source);
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    // A plain integer literal (the usual wide token: a 19-digit time) is its own BigInt text; other
    // notations (exponent, fraction) go through exactInteger's regular expression.
    return isPlainInteger(source) ? BigInt(source) : exactInteger(source) ?? n;
  }
  return n;
}

/** `-?[0-9]+`, checked by char codes (cheaper than a regular expression per token). */
function isPlainInteger(source: string): boolean {
  for (let i = source.charCodeAt(0) === 0x2d ? 1 : 0; i < source.length; i++) {
    const d = source.charCodeAt(i) - 0x30;
    if (d >>> 0 > 9) return false;
  }
  return true;
}

/** The digits 0-9 at bytes[i...], from i: the position after the last one. */
function skipDigits(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && bytes[i] - 0x30 >>> 0 <= 9) i++;
  return i;
}

/**
 * bytes[start, end) is one JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. Read by
 * bytes, so no string is made for it.
 */
function isJsonNumber(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  if (bytes[i] === 0x2d) i++;
  if (i >= end) return false;
  if (bytes[i] === 0x30) i++;
  else {
    const from = i;
    i = skipDigits(bytes, i, end);
    if (i === from) return false;
  }
  if (i < end && bytes[i] === 0x2e) {
    const from = ++i;
    i = skipDigits(bytes, i, end);
    if (i === from) return false;
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    i++;
    if (i < end && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
    const from = i;
    i = skipDigits(bytes, i, end);
    if (i === from) return false;
  }
  return i === end;
}

/** Copies src[from, to) to dst at `at`; returns the position after it. Short runs by a loop: a native
 *  copy costs a view object and a call, more than the bytes of a mark or a 19-digit token. */
function copyInto(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  if (to - from > 32) {
    dst.set(src.subarray(from, to), at);
    return at + (to - from);
  }
  for (let i = from; i < to; i++) dst[at++] = src[i];
  return at;
}

/**
 * Parses `buf` with the tokens at `wide` ([start, end) byte pairs) kept exact. Returns UNDECIDED when
 * this path cannot decide (a token that is not a JSON number, or the text holds `\u0001`): the caller
 * then uses the reviver, which also produces the right syntax error. Throws SyntaxError like JSON.parse.
 * The marked text is written into one buffer (not a list of views joined by Buffer.concat).
 */
function parseMarked(buf: Buffer, wide: number[]): unknown {
  if (buf.indexOf(MARK_ESCAPE) >= 0) return UNDECIDED;
  const marked = Buffer.allocUnsafe(buf.length + (wide.length >> 1) * (MARK_OPEN.length + 1));
  let at = 0;
  let last = 0;
  for (let k = 0; k < wide.length; k += 2) {
    const start = wide[k];
    const end = wide[k + 1];
    if (!isJsonNumber(buf, start, end)) return UNDECIDED;
    at = copyInto(buf, last, start, marked, at);
    at = copyInto(MARK_OPEN, 0, MARK_OPEN.length, marked, at);
    at = copyInto(buf, start, end, marked, at);
    marked[at++] = QUOTE;
    last = end;
  }
  at = copyInto(buf, last, buf.length, marked, at);
  const root: unknown = JSON.parse(marked.toString('utf8', 0, at));
  if (typeof root === 'string') return root.charCodeAt(0) === MARK ? numberOf(root.slice(1)) : root;
  if (typeof root === 'object' && root !== null) unmark(root);
  return root;
}

/** Replaces marked strings by their numbers, everywhere below `root` (an explicit stack, no recursion). */
function unmark(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'string') {
          if (v.charCodeAt(0) === MARK) node[i] = numberOf(v.slice(1));
        } else if (typeof v === 'object' && v !== null) stack.push(v);
      }
    } else {
      for (const key in node) {
        if (key.charCodeAt(0) === MARK) throw new SyntaxError('Expected a string as an object key, found a number');
        const v = node[key];
        if (typeof v === 'string') {
          if (v.charCodeAt(0) === MARK) node[key] = numberOf(v.slice(1));
        } else if (typeof v === 'object' && v !== null) stack.push(v);
      }
    }
  }
}

/**
 * JSON.stringify that writes `bigint` values as exact number literals (the inverse of the exact parse),
 * for echoing a client's values back.
 */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, bigintAsNumber);
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

function bigintAsNumber(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? rawJSON(value.toString()) : value;
}
