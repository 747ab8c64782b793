// Trace, span and reference ids (ingest-api.md §4.3): the accepted input forms, the one output form
// (lowercase hex) and its bytes for protobuf, and fresh random ids. Runs for several ids of every span,
// so it works on char codes and allocates only when the input is not already in output form.
import { randomFillSync } from 'node:crypto';

/** Char code -> 0..15 for a hex digit (either case), -1 otherwise; codes >= 128 are never hex. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX_VALUE[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX_VALUE[97 + c] = 10 + c;
  HEX_VALUE[65 + c] = 10 + c;
}

function hexValue(c: number): number {
  return c < 128 ? HEX_VALUE[c] : -1;
}

/**
 * Writes the bytes of the hex id `s` at `out[offset]` and returns how many; a non-hex pair becomes 0
 * (ids reaching an encoder were validated on the way in). The protobuf form of an id (otlp.md).
 */
export function hexToBytes(s: string, out: Uint8Array, offset: number): number {
  const n = s.length >> 1;
  for (let i = 0; i < n; i++) {
    const hi = hexValue(s.charCodeAt(2 * i));
    const lo = hexValue(s.charCodeAt(2 * i + 1));
    out[offset + i] = hi < 0 || lo < 0 ? 0 : (hi << 4) | lo;
  }
  return n;
}

/**
 * Per char code below 128, what scanHex needs to know, as bits OR-ed over the whole range: a hex
 * digit that is not zero, an uppercase one, not a hex digit at all. One load and one OR per char.
 */
const NONZERO = 1;
const UPPER = 2;
const NOT_HEX = 8;
const HEX_CLASS = new Uint8Array(128).fill(NOT_HEX);
HEX_CLASS[48] = 0;
for (let c = 49; c < 58; c++) HEX_CLASS[c] = NONZERO;
for (let c = 0; c < 6; c++) {
  HEX_CLASS[97 + c] = NONZERO;
  HEX_CLASS[65 + c] = NONZERO | UPPER;
}

/**
 * Checks that s[from, to) is all hex digits. Returns 1 when it is and already lowercase, 2 when it is but
 * holds uppercase digits, 0 when it is not hex. Bit 4 is set when every digit is zero.
 */
function scanHex(s: string, from: number, to: number): number {
  let bits = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    bits |= c < 128 ? HEX_CLASS[c] : NOT_HEX;
  }
  if ((bits & NOT_HEX) !== 0) return 0;
  return ((bits & UPPER) !== 0 ? 2 : 1) | ((bits & NONZERO) === 0 ? 4 : 0);
}

const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';

/**
 * The 32 hex digits of the dashed / braced / `urn:uuid:` forms, lowercased; undefined when the input is
 * not one of them. Algorithm of §4.3: drop a leading `urn:uuid:`, then one enclosing `{` `}` pair, then
 * every `-`; exactly 32 hex digits must remain. Zero is not checked here.
 */
function hex32Form(s: string): string | undefined {
  const n = s.length;
  // Fast path: already 32 plain hex digits (the usual case).
  if (n === 32) {
    const r = scanHex(s, 0, 32);
    if (r === 0) return undefined;
    return (r & 2) !== 0 ? s.toLowerCase() : s;
  }
  if (n < 32) return undefined;
  let from = 0;
  let to = n;
  if (s.startsWith('urn:uuid:')) from = 9;
  if (to - from >= 2 && s.charCodeAt(from) === 123 /* { */ && s.charCodeAt(to - 1) === 125 /* } */) {
    from++;
    to--;
  }
  let out = '';
  let count = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c === 45 /* - */) continue;
    if (c >= 128 || (HEX_CLASS[c] & NOT_HEX) !== 0) return undefined;
    if (++count > 32) return undefined;
    out += s[i];
  }
  if (count !== 32) return undefined;
  return out.toLowerCase();
}

/** A trace id in output form (32 lowercase hex, non-zero), or undefined when the input is invalid. */
export function normaliseTraceId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  let hex: string | undefined;
  if (value.length === 34 && value.charCodeAt(0) === 48 && value.charCodeAt(1) === 120 /* 0x */) {
    const r = scanHex(value, 2, 34);
    if (r === 0) return undefined;
    hex = value.slice(2);
    if ((r & 2) !== 0) hex = hex.toLowerCase();
  } else {
    hex = hex32Form(value);
  }
  if (hex === undefined || hex === ZERO_TRACE) return undefined;
  return hex;
}

/**
 * A span id in output form (16 lowercase hex), zero included, or undefined when the input is not one of
 * the span-id forms. `parent_id` needs the zero case ("no parent"); other callers use normaliseSpanId.
 */
export function spanIdHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const n = value.length;
  if (n === 16) {
    const r = scanHex(value, 0, 16);
    if (r === 0) return undefined;
    return (r & 2) !== 0 ? value.toLowerCase() : value;
  }
  if (n === 18 && value.charCodeAt(0) === 48 && value.charCodeAt(1) === 120 /* 0x */) {
    const r = scanHex(value, 2, 18);
    if (r === 0) return undefined;
    const hex = value.slice(2);
    return (r & 2) !== 0 ? hex.toLowerCase() : hex;
  }
  // A trace-id-shaped value gives its last 16 digits (OpenTelemetry bridges that widen span ids).
  const hex = hex32Form(value);
  return hex === undefined ? undefined : hex.slice(16);
}

/** True for the all-zero span id (`parent_id`: no parent). */
export function isZeroSpanId(hex: string): boolean {
  return hex === ZERO_SPAN;
}

/** A span id in output form (16 lowercase hex, non-zero), or undefined when the input is invalid. */
export function normaliseSpanId(value: unknown): string | undefined {
  const hex = spanIdHex(value);
  if (hex === undefined || hex === ZERO_SPAN) return undefined;
  return hex;
}

/**
 * A reference id as a lowercase dashed UUID `8-4-4-4-12`, from any 32-hex form of §4.3 (no `0x`).
 * The nil UUID is accepted: it is a well-formed UUID, and the all-zero rule exists for trace ids only
 * because OpenTelemetry reserves zero as "invalid" (docs/decisions/0100).
 */
export function normaliseUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const h = hex32Form(value);
  if (h === undefined) return undefined;
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}

/** True for exactly `len` lowercase hex digits, not all zero: the in-memory id form (span-record.md). */
export function isCanonicalHexId(value: unknown, len: 16 | 32): boolean {
  if (typeof value !== 'string' || value.length !== len) return false;
  return scanHex(value, 0, len) === 1;
}

// ---- random ids ---------------------------------------------------------------------------------
// Flat spans without a name get a random one, so this can run once per span: bytes come from a pooled
// buffer refilled in one system call instead of one call per id. The pool belongs to its owner (a
// receiver that checks spans), so no two pipelines or threads share a position in it.

/** Byte -> its two lowercase hex digits. */
const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const POOL_SIZE = 4096;

export class RandomIds {
  readonly #pool = Buffer.allocUnsafe(POOL_SIZE);
  #pos = POOL_SIZE;

  /** `chars` random lowercase hex digits (chars even, at most 2 * POOL_SIZE). */
  hex(chars: number): string {
    const bytes = chars >> 1;
    const pool = this.#pool;
    if (this.#pos + bytes > POOL_SIZE) {
      randomFillSync(pool);
      this.#pos = 0;
    }
    let out = '';
    for (let i = 0; i < bytes; i++) out += BYTE_HEX[pool[this.#pos++]];
    return out;
  }

  /** A fresh trace id: 32 lowercase hex, never all zeros. */
  traceId(): string {
    for (;;) {
      const id = this.hex(32);
      if (id !== ZERO_TRACE) return id;
    }
  }

  /** A fresh span id: 16 lowercase hex, never all zeros. */
  spanId(): string {
    for (;;) {
      const id = this.hex(16);
      if (id !== ZERO_SPAN) return id;
    }
  }
}
