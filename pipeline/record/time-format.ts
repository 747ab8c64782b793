// Writing a span time (bigint nanoseconds since the Unix epoch, UTC) as the ISO 8601 text of the JSON
// record (ingest-api.md §4.4 output): `YYYY-MM-DDThh:mm:ss[.f]Z`, the fraction trimmed of trailing zeros,
// at most 9 digits, none when zero. Parsing lives in pipeline/time.ts.

const NS_PER_SECOND = 1_000_000_000n;
const SECONDS_PER_DAY = 86_400;

/** '00'..'59', so hours, minutes and seconds need no padding work per call. */
const TWO_DIGITS: string[] = [];
for (let i = 0; i < 60; i++) TWO_DIGITS.push(i < 10 ? '0' + i : String(i));

// Building the date through Date costs several times the rest, and every span of a batch is nearly
// always on the same day, so the `YYYY-MM-DDT` of the last day seen is kept (one entry, no growth).
let cachedDay = Number.NaN;
let cachedDayPrefix = '';

export function formatTimeNs(ns: bigint): string {
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
    cachedDayPrefix = new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 11);
    cachedDay = day;
  }
  const inDay = second - day * SECONDS_PER_DAY;
  const minutes = Math.floor(inDay / 60);
  const text = cachedDayPrefix + TWO_DIGITS[Math.floor(minutes / 60)] + ':' + TWO_DIGITS[minutes % 60] + ':' +
    TWO_DIGITS[inDay % 60];
  if (fraction === 0n) return text + 'Z';
  return text + '.' + trimmedFraction(Number(fraction)) + 'Z';
}

/** 1..999_999_999 -> its 9-digit zero-padded text without trailing zeros (500_000_000 -> "5"). */
function trimmedFraction(fraction: number): string {
  let digits = 9;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  const text = String(fraction);
  return text.length === digits ? text : '0'.repeat(digits - text.length) + text;
}
