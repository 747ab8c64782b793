// Writing a span time (bigint nanoseconds since the Unix epoch, UTC) as the ISO 8601 text of the JSON
// record (ingest-api.md §4.4 output): `YYYY-MM-DDThh:mm:ss[.f]Z`, the fraction trimmed of trailing zeros,
// at most 9 digits, none when zero. Parsing lives in model/time.ts.
//
// Three of these per span on the record's hot path, so the digits go straight into the writer's bytes;
// formatTimeNs is the same code writing into a buffer of its own.
import { Uint64ToNumber } from '../../model/byte-order.ts';
import { Piece } from '../bytes/piece.ts';
import { JsonWriter } from './json-writer.ts';
import { COLON, DIGIT_0, DOT, LETTER_Z } from '../bytes/ascii.ts';

const NS_PER_DAY = 86_400_000_000_000n;
const SECONDS_PER_DAY = 86_400;

/**
 * Writes times for one batch. It keeps the UTC day of the last time written, [dayStartNs, dayEndNs):
 * the times of a batch are nearly always in one day, and within it the offset from midnight is below
 * 2^53 ns: two bigint comparisons and one subtraction, then exact double/int32 arithmetic, instead of a
 * bigint `/` and `%` per time (docs/performance.md, round 0320). And it keeps `YYYY-MM-DDThh:mm:ss` of that day
 * and the last second of day written, copied whole while the second repeats, as it mostly does between
 * the start, end and event times of the spans of a batch.
 */
export class TimeText {
  private dayStartNs = 0n;
  private dayEndNs = 0n; // an empty window until the first time is written
  private readonly secondText = new Piece(19);
  private lastSecondOfDay = -1;
  private readonly toNumber = new Uint64ToNumber();

  /** Moves the cached day to the one holding `ns` (floor division, so times before the epoch work too). */
  private enterDay(ns: bigint): void {
    let day = ns / NS_PER_DAY;
    if (day * NS_PER_DAY > ns) day -= 1n; // bigint division truncates toward zero
    this.dayStartNs = day * NS_PER_DAY;
    this.dayEndNs = this.dayStartNs + NS_PER_DAY;
    // Date builds the calendar date once per day; it covers every day a 64-bit ns time can name.
    const prefix = new Date(Number(day) * SECONDS_PER_DAY * 1000).toISOString();
    // The hh:mm:ss after it still belong to lastSecondOfDay, in any day.
    for (let i = 0; i < 11; i++) this.secondText.set(i, prefix.charCodeAt(i));
  }

  private enterSecond(second: number): void {
    const text = this.secondText;
    const minutes = (second / 60) | 0;
    twoDigits(text, 11, (minutes / 60) | 0);
    text.set(13, COLON);
    twoDigits(text, 14, minutes % 60);
    text.set(16, COLON);
    twoDigits(text, 17, second % 60);
    this.lastSecondOfDay = second;
  }

  /** Writes the time's text (no quotes) into `w`. */
  write(w: JsonWriter, ns: bigint): void {
    if (ns < this.dayStartNs || ns >= this.dayEndNs) this.enterDay(ns);
    // In [0, 86_400e9), below 2^53: exact as a double. `| 0`: second and fraction fit in 31 bits, and as
    // int32 the digit arithmetic stays integer (measured: as doubles every `%` is an fmod call, 2x slower).
    // Uint64ToNumber, not Number(): no heap BigInt for the difference.
    const inDayNs = this.toNumber.of(ns - this.dayStartNs);
    const second = Math.floor(inDayNs / 1e9) | 0;
    let f = (inDayNs - second * 1e9) | 0;
    if (second !== this.lastSecondOfDay) this.enterSecond(second);
    w.copy(this.secondText);
    // At most `.` + 9 digits + `Z`.
    w.reserve(11);
    const buf = w.buf;
    let p = w.pos;
    if (f !== 0) {
      // All 9 digits, zero-padded, then the trailing zeros dropped (500_000_000 -> "5"); f !== 0, so a
      // non-zero digit stops the walk back.
      buf[p] = DOT;
      let end = p + 10;
      for (let i = end - 1; i > p; i--) {
        const rest = (f / 10) | 0;
        buf[i] = DIGIT_0 + f - rest * 10;
        f = rest;
      }
      while (buf[end - 1] === DIGIT_0) end--;
      p = end;
    }
    buf[p++] = LETTER_Z;
    w.pos = p;
  }
}

function twoDigits(piece: Piece, i: number, value: number): void {
  const tens = (value / 10) | 0;
  piece.set(i, DIGIT_0 + tens);
  piece.set(i + 1, DIGIT_0 + value - tens * 10);
}

/** The time's text, e.g. `2026-04-16T18:18:19.123456789Z`. */
export function formatTimeNs(ns: bigint): string {
  const w = new JsonWriter(64);
  new TimeText().write(w, ns);
  return w.buf.toString('latin1', 0, w.pos);
}
