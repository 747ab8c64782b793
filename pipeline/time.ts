// Timestamps of the tracing API (ingest-api.md §4.4) -> integer nanoseconds since the Unix epoch, UTC.
// Two per span at least, so the ISO form is read with a char loop, not a regex or Date.parse (which
// would also read offset-less times as local time and lose everything below milliseconds).

/** 2^64: the exclusive upper bound of a valid time. */
const NS_LIMIT = 1n << 64n;

/** Scale from the digit count of an epoch integer to nanoseconds; other counts are rejected. */
function epochScale(digits: number): bigint | undefined {
  switch (digits) {
    case 10: return 1_000_000_000n; // seconds
    case 13: return 1_000_000n; // milliseconds
    case 16: return 1_000n; // microseconds
    case 19: return 1n; // nanoseconds
    default: return undefined;
  }
}

/** An epoch integer (>= 0) read by its digit count. */
function fromEpochInteger(value: bigint): bigint | undefined {
  if (value <= 0n) return undefined; // negative; zero has one digit, which is no unit either
  const scale = epochScale(value.toString().length);
  if (scale === undefined) return undefined;
  const ns = value * scale;
  return ns < NS_LIMIT ? ns : undefined;
}

/** A safe-integer epoch: its digit count read by comparison, skipping a bigint-to-text conversion. */
function fromSafeEpoch(value: number): bigint | undefined {
  let scale: bigint;
  if (value >= 1e9 && value < 1e10) scale = 1_000_000_000n;
  else if (value >= 1e12 && value < 1e13) scale = 1_000_000n;
  else if (value >= 1e15 && value < 1e16) scale = 1_000n;
  else return undefined; // 19 digits are never safe integers
  return BigInt(value) * scale;
}

/** Digits only (ASCII): read exactly, leading zeros not counted. */
function fromDigitString(s: string): bigint | undefined {
  let start = 0;
  while (start < s.length - 1 && s.charCodeAt(start) === 48) start++;
  const digits = s.length - start;
  const scale = epochScale(digits);
  if (scale === undefined) return undefined;
  const ns = BigInt(start === 0 ? s : s.slice(start)) * scale;
  return ns < NS_LIMIT ? ns : undefined;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The number held by `n` ASCII digits at s[at], or -1 when one of them is not a digit. */
function digitsAt(s: string, at: number, n: number): number {
  if (at + n > s.length) return -1;
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
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

/**
 * `YYYY-MM-DD[(T|t| )hh:mm[:ss[(.|,)fraction]][Z|z|±hh[:mm]|±hhmm]]`, UTC when no offset is given.
 * The fraction is read only after seconds; digits beyond nanoseconds are dropped, not rounded.
 */
function fromIso(s: string): bigint | undefined {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return undefined;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
  if (day > monthDays) return undefined;
  let seconds = daysFromCivil(year, month, day) * 86400;
  let fracNs = 0;
  let i = 10;
  if (i < n) {
    const sep = s.charCodeAt(i);
    if (sep !== 84 /* T */ && sep !== 116 /* t */ && sep !== 32 /* space */) return undefined;
    i++;
    const hour = digitsAt(s, i, 2);
    if (hour < 0 || hour > 23 || s.charCodeAt(i + 2) !== 58 /* : */) return undefined;
    const minute = digitsAt(s, i + 3, 2);
    if (minute < 0 || minute > 59) return undefined;
    i += 5;
    let second = 0;
    if (i < n && s.charCodeAt(i) === 58) {
      second = digitsAt(s, i + 1, 2);
      if (second < 0 || second > 59) return undefined;
      i += 3;
      if (i < n && (s.charCodeAt(i) === 46 /* . */ || s.charCodeAt(i) === 44 /* , */)) {
        i++;
        const fracStart = i;
        let scale = 100_000_000;
        while (i < n && isDigit(s.charCodeAt(i))) {
          fracNs += (s.charCodeAt(i) - 48) * scale;
          scale = Math.floor(scale / 10); // becomes 0 past the ninth digit: the rest is dropped
          i++;
        }
        if (i === fracStart) return undefined;
      }
    }
    seconds += hour * 3600 + minute * 60 + second;
    if (i < n) {
      const z = s.charCodeAt(i);
      if (z === 90 /* Z */ || z === 122 /* z */) {
        i++;
      } else if (z === 43 /* + */ || z === 45 /* - */) {
        const oh = digitsAt(s, i + 1, 2);
        if (oh < 0 || oh > 23) return undefined;
        i += 3;
        let om = 0;
        if (i < n) {
          const colon = s.charCodeAt(i) === 58 ? 1 : 0;
          om = digitsAt(s, i + colon, 2);
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
  const ns = BigInt(seconds) * 1_000_000_000n + BigInt(fracNs);
  return ns >= 0n && ns < NS_LIMIT ? ns : undefined;
}

/**
 * A timestamp of the tracing API as nanoseconds since the epoch, or undefined when it is not one:
 * ISO strings (UTC unless an offset is given), epoch integers by digit count (10 s, 13 ms, 16 us,
 * 19 ns) as JSON numbers, bigints (integers the receiver read exactly) or digit strings.
 * Valid range 0 <= ns < 2^64.
 */
export function parseTimestamp(value: unknown): bigint | undefined {
  switch (typeof value) {
    case 'string': {
      const n = value.length;
      if (n === 0) return undefined;
      let allDigits = true;
      for (let i = 0; i < n; i++) {
        if (!isDigit(value.charCodeAt(i))) { allDigits = false; break; }
      }
      return allDigits ? fromDigitString(value) : fromIso(value);
    }
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
