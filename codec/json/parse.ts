// JSON bytes -> values, keeping integers beyond +-(2^53-1) exact as `bigint` (span-record.md, ingest-api.md
// §4.4: 19-digit nanosecond timestamps must not be rounded). One scan over the bytes (depth.ts) decides:
// the common body has no number a double could round, and is a plain JSON.parse; otherwise a reviver
// reads each wide number's source text (Node 24) and keeps it exact. The reviver costs several times a
// plain parse, which is why it runs only when the scan saw such a number.
import { isUtf8 } from 'node:buffer';
import { scanJson } from './depth.ts';

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
function parseJson(text: string, exactNumbers: boolean): unknown {
  return exactNumbers
    ? JSON.parse(text, exactReviver as (this: unknown, key: string, value: unknown) => unknown)
    : JSON.parse(text);
}

export type ParsedJson =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'empty' | 'too_deep' | 'too_many_values' | 'invalid_utf8' | 'invalid_json'; message: string };

/** The refusal of a body with more than `limit` objects and arrays (checked before they are built). */
function tooManyValuesMessage(limit: number): string {
  return `JSON body holds more than max_values_per_request (${limit}) objects and arrays`;
}

/**
 * Raw request bytes -> value, in the order the ingest API checks them (ingest-api.md §2.1): nesting depth
 * on the raw text first (no object is built for a body that is too deep), then the number of objects
 * and arrays (`maxValues`), then UTF-8, then JSON. `depthKey` names the nesting limit in the message.
 * Never throws on input.
 */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number, maxValues = Number.POSITIVE_INFINITY, depthKey = 'max_nesting_depth'): ParsedJson {
  if (bytes.length === 0) return { ok: false, problem: 'empty', message: 'Field required' };
  const scan = scanJson(bytes, maxDepth);
  if (scan.tooDeep) {
    return { ok: false, problem: 'too_deep', message: `JSON nesting is deeper than ${depthKey} (${maxDepth})` };
  }
  if (scan.containers > maxValues) return { ok: false, problem: 'too_many_values', message: tooManyValuesMessage(maxValues) };
  if (!isUtf8(bytes)) return { ok: false, problem: 'invalid_utf8', message: 'Body is not valid UTF-8' };
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return { ok: true, value: parseJson(buf.toString('utf8'), scan.exactNumbers) };
  } catch (error) {
    return { ok: false, problem: 'invalid_json', message: `JSON decode error: ${(error as Error).message}` };
  }
}

/**
 * JSON.stringify that writes `bigint` values as exact number literals (the inverse of the exact parse),
 * for echoing a client's values back.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, bigintAsNumber, indent);
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

function bigintAsNumber(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? rawJSON(value.toString()) : value;
}
