// Timestamps of the tracing API (ingest-api.md §4.4) -> integer nanoseconds since the Unix epoch, UTC.
// The same reader serves the time filters of the read routes and the record times of read responses
// (span-record.md: `YYYY-MM-DDThh:mm:ss[.f]Z`, one of the ISO forms read here) that `tracehop trace` and
// the page order and measure spans by. Two per span at least, so the ISO form is read with a char loop,
// not a regex or Date.parse (which would also read offset-less times as local time and lose everything
// below milliseconds).

/** The first time past what a 64-bit count of nanoseconds holds (OTLP's fixed64, the record's times). */
export const NS_LIMIT = 1n << 64n;

/** floor(2^64 / 1e9): a whole second below this one, plus any fraction, is always under 2^64 ns. */
const MAX_SECONDS = 18_446_744_073;

// A time is built as whole seconds plus a fraction below 1e9 (both exact doubles): one bigint product
// and one small BigInt, rather than BigInt(text) of up to 19 digits.
/**
 * `seconds` (an integer) + `fracNs` (0 <= fracNs < 1e9) as nanoseconds, or undefined outside
 * 0 <= ns < 2^64.
 */
function secondsToNs(seconds: number, fracNs: number): bigint | undefined {
  if (seconds < 0 || seconds > MAX_SECONDS) return undefined;
  const secondsNs = BigInt(seconds) * 1_000_000_000n;
  const ns = fracNs === 0 ? secondsNs : secondsNs + BigInt(fracNs);
  // Only the last second can reach 2^64 (2^64 ns is 18446744073.709551616 s).
  return seconds < MAX_SECONDS || ns < NS_LIMIT ? ns : undefined;
}

/**
 * An epoch integer (a bigint: the receiver reads integers beyond 2^53 exactly) by its digit count,
 * found by comparisons rather than value.toString() (a 19-digit bigint's text cost more than the rest).
 * Every accepted value stays below 1e19 ns, so under 2^64.
 */
function fromEpochInteger(value: bigint): bigint | undefined {
  if (value >= 1_000_000_000_000_000_000n) return value < 10_000_000_000_000_000_000n ? value : undefined;
  if (value >= 1_000_000_000_000_000n && value < 10_000_000_000_000_000n) return value * 1_000n;
  if (value >= 1_000_000_000_000n && value < 10_000_000_000_000n) return value * 1_000_000n;
  if (value >= 1_000_000_000n && value < 10_000_000_000n) return value * 1_000_000_000n;
  return undefined; // other digit counts, zero, negative
}

/** A safe-integer epoch: its digit count read by comparison, skipping a bigint-to-text conversion. */
function fromSafeEpoch(value: number): bigint | undefined {
  // BigInt(value) is exact and cheap here; splitting into seconds and a fraction measured slower.
  let scale: bigint;
  if (value >= 1e9 && value < 1e10) scale = 1_000_000_000n;
  else if (value >= 1e12 && value < 1e13) scale = 1_000_000n;
  else if (value >= 1e15 && value < 1e16) scale = 1_000n;
  else return undefined; // 19 digits are never safe integers
  return BigInt(value) * scale;
}

/** 10^(9 - k) for k fraction digits of an epoch (s, ms, us, ns): fraction -> nanoseconds. */
const FRACTION_SCALE = [1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1];

/**
 * The value of the ASCII digits s[from, to) (at most 15 of them, to <= s.length), or -1 when one is
 * not a digit.
 */
function digitValue(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d >>> 0 > 9) return -1; // one unsigned compare: a code below '0' wraps to a large value
    v = v * 10 + d;
  }
  return v;
}

/**
 * A string of ASCII digits: read exactly, leading zeros not counted; undefined for any other string.
 * Every accepted unit has ten digits of whole seconds; the 0, 3, 6 or 9 digits after them are the
 * fraction. The digits are checked while they are read (one pass: the char loads were most of the
 * cost of a 19-digit time once the bigint work was gone).
 */
function fromDigitString(s: string): bigint | undefined {
  const n = s.length;
  let start = 0;
  while (start < n - 1 && s.charCodeAt(start) === 48) start++;
  const fractionDigits = n - start - 10;
  if (fractionDigits !== 0 && fractionDigits !== 3 && fractionDigits !== 6 && fractionDigits !== 9) return undefined;
  const seconds = digitValue(s, start, start + 10);
  const fraction = fractionDigits === 0 ? 0 : digitValue(s, start + 10, n);
  if (seconds < 0 || fraction < 0) return undefined;
  return secondsToNs(seconds, fraction * FRACTION_SCALE[fractionDigits]);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * digitValue(s, at, at + 2) without the loop, and -1 past the end: six of the seven fields are two
 * digits, and fromIso is hot.
 */
function twoDigitsAt(s: string, at: number): number {
  if (at + 2 > s.length) return -1;
  const hi = s.charCodeAt(at) - 48;
  const lo = s.charCodeAt(at + 1) - 48;
  // One unsigned compare per digit: a code below '0' wraps to a large value.
  return hi >>> 0 > 9 || lo >>> 0 > 9 ? -1 : hi * 10 + lo;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 1970-01-01 to the given proleptic Gregorian date (negative before it). */
function daysFromCivil(y: number, m: number, d: number): number {
  // Shift the year to start in March so the leap day is the last day of the year.
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Seconds from the epoch to midnight UTC of the date, or NaN when there is no such date. */
function dateSeconds(year: number, month: number, day: number): number {
  if (year < 0 || month < 1 || month > 12 || day < 1) return Number.NaN;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
  if (day > monthDays) return Number.NaN;
  return daysFromCivil(year, month, day) * 86400;
}

/**
 * `YYYY-MM-DD[(T|t| )hh:mm[:ss[(.|,)fraction]][Z|z|±hh[:mm]|±hhmm]]`, UTC when no offset is given.
 * The fraction is read only after seconds; digits beyond nanoseconds are dropped, not rounded.
 */
function fromIso(s: string): bigint | undefined {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined;
  let seconds = dateSeconds(digitValue(s, 0, 4), twoDigitsAt(s, 5), twoDigitsAt(s, 8));
  if (Number.isNaN(seconds)) return undefined;
  let fracNs = 0;
  let i = 10;
  if (i < n) {
    const sep = s.charCodeAt(i);
    if (sep !== 84 /* T */ && sep !== 116 /* t */ && sep !== 32 /* space */) return undefined;
    i++;
    const hour = twoDigitsAt(s, i);
    if (hour < 0 || hour > 23 || s.charCodeAt(i + 2) !== 58 /* : */) return undefined;
    const minute = twoDigitsAt(s, i + 3);
    if (minute < 0 || minute > 59) return undefined;
    i += 5;
    let second = 0;
    if (i < n && s.charCodeAt(i) === 58) {
      second = twoDigitsAt(s, i + 1);
      if (second < 0 || second > 59) return undefined;
      i += 3;
      if (i < n && (s.charCodeAt(i) === 46 /* . */ || s.charCodeAt(i) === 44 /* , */)) {
        i++;
        const fracStart = i;
        // Up to nine digits read as one integer and scaled once; the rest are dropped (not rounded).
        let c: number;
        while (i < n && isDigit((c = s.charCodeAt(i)))) {
          if (i - fracStart < 9) fracNs = fracNs * 10 + (c - 48);
          i++;
        }
        const fracDigits = i - fracStart;
        if (fracDigits === 0) return undefined;
        if (fracDigits < 9) fracNs *= FRACTION_SCALE[fracDigits];
      }
    }
    seconds += hour * 3600 + minute * 60 + second;
    if (i < n) {
      const z = s.charCodeAt(i);
      if (z === 90 /* Z */ || z === 122 /* z */) {
        i++;
      } else if (z === 43 /* + */ || z === 45 /* - */) {
        const oh = twoDigitsAt(s, i + 1);
        if (oh < 0 || oh > 23) return undefined;
        i += 3;
        let om = 0;
        if (i < n) {
          const colon = s.charCodeAt(i) === 58 ? 1 : 0;
          om = twoDigitsAt(s, i + colon);
          if (om < 0 || om > 59) return undefined;
          i += colon + 2;
        }
        const offset = oh * 3600 + om * 60;
        seconds += z === 43 ? -offset : offset;
      } else {
        return undefined;
      }
    }
    if (i !== n) return undefined;
  }
  // Numbers stay exact here: |seconds| < 2^53 for any 4-digit year.
  return secondsToNs(seconds, fracNs);
}

/**
 * A timestamp of the tracing API as nanoseconds since the epoch, or undefined when it is not one:
 * ISO strings (UTC unless an offset is given), epoch integers by digit count (10 s, 13 ms, 16 us,
 * 19 ns) as JSON numbers, bigints (integers the receiver read exactly) or digit strings.
 * Valid range 0 <= ns < 2^64.
 */
export function parseTimestamp(value: unknown): bigint | undefined {
  switch (typeof value) {
    case 'string':
      // An ISO date has '-' at index 4, a digit string never does; each parser rejects what is not its
      // form, so no separate "all digits?" pass is needed.
      return value.length > 4 && value.charCodeAt(4) === 45 ? fromIso(value) : fromDigitString(value);
    case 'number':
      // A number is an integer when its value is integral (1.7e9 is 1700000000).
      if (!Number.isInteger(value) || value < 0) return undefined;
      return value <= Number.MAX_SAFE_INTEGER ? fromSafeEpoch(value) : fromEpochInteger(BigInt(value));
    case 'bigint':
      return fromEpochInteger(value);
    default:
      return undefined;
  }
}
