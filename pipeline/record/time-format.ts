// Writing a span time (bigint nanoseconds since the Unix epoch, UTC) as the ISO 8601 text of the JSON
// record (ingest-api.md §4.4 output): `YYYY-MM-DDThh:mm:ss[.f]Z`, the fraction trimmed of trailing zeros,
// at most 9 digits, none when zero. Parsing lives in pipeline/time.ts.
//
// Three of these per span on the record's hot path, so the digits go straight into the writer's bytes;
// formatTimeNs is the same code writing into a scratch buffer.
import { ascii, JsonWriter } from './json-writer.ts';

const NS_PER_SECOND = 1_000_000_000n;
const SECONDS_PER_DAY = 86_400;
const DIGIT_0 = 0x30;
const COLON = 0x3a;
const DOT = 0x2e;
const LETTER_Z = 0x5a;

// Building the date through Date costs several times the rest, and every span of a batch is nearly
// always on the same day, so the `YYYY-MM-DDT` of the last day seen is kept (one entry, no growth).
let cachedDay = Number.NaN;
let cachedDayPrefix = ascii('');

/** Writes the time's text (no quotes) into `w`. */
export function writeTimeNs(w: JsonWriter, ns: bigint): void {
  let seconds = ns / NS_PER_SECOND;
  let fraction = ns % NS_PER_SECOND;
  // BigInt division truncates toward zero; times before the epoch (never valid input, but the writer
  // must not produce garbage) need the floor so that the fraction is positive.
  if (fraction < 0n) {
    fraction += NS_PER_SECOND;
    seconds -= 1n;
  }
  const second = Number(seconds);
  const day = Math.floor(second / SECONDS_PER_DAY);
  if (day !== cachedDay) {
    cachedDayPrefix = ascii(new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 11));
    cachedDay = day;
  }
  w.copy(cachedDayPrefix);
  const inDay = second - day * SECONDS_PER_DAY;
  const minutes = Math.floor(inDay / 60);
  // hh:mm:ss, then at most `.` + 9 digits + `Z`.
  w.reserve(19);
  const buf = w.buf;
  let p = w.pos;
  p = twoDigits(buf, p, Math.floor(minutes / 60));
  buf[p++] = COLON;
  p = twoDigits(buf, p, minutes % 60);
  buf[p++] = COLON;
  p = twoDigits(buf, p, inDay % 60);
  let f = Number(fraction);
  if (f !== 0) {
    // 9 digits, zero-padded, without the trailing zeros (500_000_000 -> "5").
    let digits = 9;
    while (f % 10 === 0) {
      f /= 10;
      digits--;
    }
    buf[p++] = DOT;
    for (let i = digits; i > 0; i--) {
      buf[p + i - 1] = DIGIT_0 + (f % 10);
      f = Math.floor(f / 10);
    }
    p += digits;
  }
  buf[p++] = LETTER_Z;
  w.pos = p;
}

function twoDigits(buf: Uint8Array, p: number, value: number): number {
  buf[p] = DIGIT_0 + Math.floor(value / 10);
  buf[p + 1] = DIGIT_0 + (value % 10);
  return p + 2;
}

const scratch = new JsonWriter(64);

/** The time's text, e.g. `2026-04-16T18:18:19.123456789Z`. */
export function formatTimeNs(ns: bigint): string {
  scratch.reset();
  writeTimeNs(scratch, ns);
  return scratch.buf.toString('latin1', 0, scratch.pos);
}
