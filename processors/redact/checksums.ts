// The check digits that tell a payment card number or an IBAN from any other run of digits: without them
// every order number, phone number and timestamp of the right length would be redacted.

/** The digits of `s` (separators dropped). */
export function digitsOf(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) out += s[i];
  }
  return out;
}

/** Luhn (ISO/IEC 7812-1): every second digit from the right doubled, the sum a multiple of 10. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Whether `digits` has the length its issuer's prefix (IIN) gives card numbers: Visa 4 (13, 16, 19),
 * Mastercard 51-55 and 2221-2720 (16), American Express 34 and 37 (15), Discover 6011, 644-649, 65 and
 * UnionPay 62 (16-19), JCB 3528-3589 (16-19), Diners 300-305, 36, 38, 39 (14-19). Other prefixes (a
 * millisecond timestamp starts with 1) are not card numbers.
 */
export function cardLayoutValid(digits: string): boolean {
  const n = digits.length;
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  switch (digits[0]) {
    case '4': return n === 13 || n === 16 || n === 19;
    case '5': return two >= 51 && two <= 55 && n === 16;
    case '2': return four >= 2221 && four <= 2720 && n === 16;
    case '3':
      if (two === 34 || two === 37) return n === 15;
      if (four >= 3528 && four <= 3589) return n >= 16 && n <= 19;
      if ((four >= 3000 && four <= 3059) || two === 36 || two === 38 || two === 39) return n >= 14 && n <= 19;
      return false;
    case '6':
      if (four === 6011 || two === 65 || two === 62 || (four >= 6440 && four <= 6499)) return n >= 16 && n <= 19;
      return false;
    default: return false;
  }
}

/** A payment card number: 13 to 19 digits, an issuer's layout, and the Luhn check. */
export function cardValid(match: string): boolean {
  const digits = digitsOf(match);
  return digits.length >= 13 && digits.length <= 19 && cardLayoutValid(digits) && luhnValid(digits);
}

/** ISO 13616: the first four characters moved to the end, letters as 10..35, the number mod 97 is 1. */
export function ibanValid(match: string): boolean {
  const iban = match.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < moved.length; i++) {
    const c = moved.charCodeAt(i);
    if (c >= 48 && c <= 57) rest = (rest * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) rest = (rest * 100 + (c - 55)) % 97;
    else return false;
  }
  return rest === 1;
}

/** Phone numbers have 8 to 15 digits (E.164 allows at most 15). */
export function phoneValid(match: string): boolean {
  const n = digitsOf(match).length;
  return n >= 8 && n <= 15;
}

/** A random token has digits and letters; a long hyphenated phrase after `sk-` or `Bearer` has no digit. */
export function looksRandom(match: string): boolean {
  return /[0-9]/.test(match) && /[A-Za-z]/.test(match);
}
