// The built-in detectors: what each finds, the cheap test that must pass before its regular expression
// runs, and the check that confirms a match (Luhn, mod-97, the shape of a random token).
//
// Why the gates: a span of an LLM call carries kilobytes of message text, and a regular expression walks
// it at about a nanosecond per character, so fourteen of them would cost more than decoding the span.
// `gates` looks for the few characters every secret of a kind must contain with `indexOf` (which the
// engine runs as a memchr, an order of magnitude faster) and only the detectors whose characters are
// there run. Digits are the exception (text is full of them): one regular expression looks for six
// digits close together, which every card, phone number and IBAN has, before those three run.
import { cardValid, ibanValid, looksRandom, phoneValid } from './checksums.ts';

export const BUILTIN_RULES = [
  'private_key', 'jwt', 'anthropic', 'openai', 'aws', 'github', 'google', 'slack', 'stripe', 'bearer', 'email', 'iban', 'card', 'phone',
] as const;

/** The gate bits (see `gates`). */
export const Gate = {
  EMAIL: 1, DIGITS: 2, PEM: 4, JWT: 8, BEARER: 16, SK_DASH: 32, AWS: 64, GITHUB: 128, GOOGLE: 256, SLACK: 512, STRIPE: 1024,
  /** Thirteen digits or more (a short value) or a cluster (a long one): card numbers. */
  CARD_DIGITS: 2048,
  /** User rules: no gate, they run on every string (the processor sets this bit itself). */
  USER: 1 << 20,
} as const;

export interface Detector {
  rule: string;
  /** Runs when `gates(s) & gate` is not 0. */
  gate: number;
  /** Global; with the `d` flag when it has a group named `secret`: then only that group is replaced. */
  pattern: RegExp;
  /** Confirms a match (the `secret` group's text when there is one); absent: every match counts. */
  valid?: (found: string) => boolean;
}

/** A word character of a token on either side means the match is part of something longer. */
const NOT_AFTER_TOKEN = '(?<![A-Za-z0-9_-])';
const NOT_BEFORE_TOKEN = '(?![A-Za-z0-9_-])';

/** Fresh compiled detectors (the `g` regular expressions keep state: one set per processor). */
export function builtinDetectors(enabled: readonly string[]): Detector[] {
  const on = new Set(enabled);
  const all: Detector[] = [
    // A PEM block, BEGIN to END; without its END (a cut value) up to where the base64 stops.
    { rule: 'private_key', gate: Gate.PEM, pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)/g },
    // header.payload.signature, the header JSON starting `{"` (base64 `eyJ`); the signature may be empty (alg none).
    { rule: 'jwt', gate: Gate.JWT, pattern: new RegExp(`${NOT_AFTER_TOKEN}eyJ[A-Za-z0-9_-]{6,}\\.[A-Za-z0-9_-]{6,}\\.[A-Za-z0-9_-]*`, 'g') },
    { rule: 'anthropic', gate: Gate.SK_DASH, pattern: new RegExp(`${NOT_AFTER_TOKEN}sk-ant-[A-Za-z0-9_-]{20,}`, 'g'), valid: looksRandom },
    // Project, service-account and admin keys, and the older 48-character form.
    { rule: 'openai', gate: Gate.SK_DASH, pattern: new RegExp(`${NOT_AFTER_TOKEN}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, 'g'), valid: looksRandom },
    // Access key ids of long-term (AKIA) and temporary (ASIA) credentials; a secret key only beside its name.
    { rule: 'aws', gate: Gate.AWS, pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
    { rule: 'aws', gate: Gate.AWS, pattern: /(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)["']?\s*[:=]\s*["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dg },
    // Classic and fine-grained personal tokens, OAuth, user-to-server, server-to-server and refresh tokens.
    { rule: 'github', gate: Gate.GITHUB, pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g },
    { rule: 'google', gate: Gate.GOOGLE, pattern: new RegExp(`${NOT_AFTER_TOKEN}AIza[0-9A-Za-z_-]{35}${NOT_BEFORE_TOKEN}`, 'g') },
    // Bot, user, app-level, refresh and configuration tokens.
    { rule: 'slack', gate: Gate.SLACK, pattern: /(?<![A-Za-z0-9-])xox[abeoprs]-[0-9A-Za-z-]{10,}/g, valid: looksRandom },
    // Secret and restricted keys, live and test (publishable keys are public by design).
    { rule: 'stripe', gate: Gate.STRIPE, pattern: /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[0-9A-Za-z]{10,99}(?![A-Za-z0-9_])/g },
    // The token after `Bearer` (an Authorization header pasted into a prompt or a tool's arguments).
    { rule: 'bearer', gate: Gate.BEARER, pattern: /(?<![A-Za-z0-9])(?:[Bb]earer|BEARER)\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/dg, valid: looksRandom },
    // The domain's first label starts with a letter: `icon@2x.png` and `pkg@1.2.3` are not addresses.
    { rule: 'email', gate: Gate.EMAIL, pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])/g },
    { rule: 'iban', gate: Gate.DIGITS, pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g, valid: ibanValid },
    // 13 to 19 digits, together or in groups of four (Amex: 4-6-5); not a decimal's digits, nor a phone's.
    { rule: 'card', gate: Gate.CARD_DIGITS, pattern: /(?<![\w.,+/-])(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?|\d{4}[ -]\d{6}[ -]\d{4,5})(?![\w+]|[.,/-]\d)/g, valid: cardValid },
    // International (+, a country code, 8 to 15 digits) or North American with separators: (555) 123-4567,
    // 555-123-4567, 555.123.4567. Bare digit runs are left alone (they are more often ids and timestamps).
    { rule: 'phone', gate: Gate.DIGITS, pattern: /(?<![\w+])\+[1-9]\d{0,2}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![\w]|[.,:]\d)|(?<![\w+.-])(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-.]\d{4}(?![\w-]|[.,:]\d)/g, valid: phoneValid },
  ];
  return all.filter((d) => on.has(d.rule));
}

/** Six digits close together (at most one separator between pairs): every card, phone and IBAN has them. */
const DIGIT_CLUSTER = /\d\d[ .()-]{0,2}\d\d[ .()-]?\d\d/;

const c = (s: string, i: number) => s.charCodeAt(i);
const K = 107, S = 115, R = 114, X = 120, O = 111, E = 101, Y = 121, G = 103, H = 104, DASH = 45;

/** Strings shorter than this can hold only an email address (a phone number has at least 8 digits and a +). */
const MIN_PHONE_CHARS = 9;
/** Strings shorter than this can hold only an email address, a phone, card or IBAN number. */
const MIN_TOKEN_CHARS = 17;
/** Below this length one loop over the characters is cheaper than a dozen `indexOf` calls. */
const SHORT_CHARS = 64;
const DIGIT_GATE_MIN_DIGITS = 6;
const CARD_MIN_DIGITS = 13;

/** ASCII code -> the gates whose walks that character starts (filled once, read only after). */
const CHAR_GATES = new Uint16Array(128);
for (const [chars, bits] of [
  ['@', Gate.EMAIL], ['-', Gate.SK_DASH | Gate.SLACK | Gate.PEM], ['_', Gate.STRIPE | Gate.GITHUB | Gate.AWS],
  ['A', Gate.AWS | Gate.GOOGLE], ['J', Gate.JWT], ['bB', Gate.BEARER],
] as const) for (const ch of chars) CHAR_GATES[ch.charCodeAt(0)] |= bits;

/** The gates a short string's characters allow (digits: at least six of them). */
function shortGates(s: string): number {
  let bits = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
    else if (code < 128) bits |= CHAR_GATES[code];
  }
  if (digits >= DIGIT_GATE_MIN_DIGITS) bits |= Gate.DIGITS;
  return digits >= CARD_MIN_DIGITS ? bits | Gate.CARD_DIGITS : bits;
}

/**
 * The gate bits of `s`: which detectors may match. Each test may say yes for text without a secret (the
 * detector then finds nothing); none says no for text with one.
 */
export function gates(s: string, wanted: number): number {
  const n = s.length;
  if (n < MIN_PHONE_CHARS) return wanted & Gate.EMAIL && s.indexOf('@') >= 0 ? Gate.EMAIL : 0;
  if (n < MIN_TOKEN_CHARS) wanted &= Gate.EMAIL | Gate.DIGITS | Gate.CARD_DIGITS;
  if (wanted === 0) return 0;
  if (n < SHORT_CHARS) {
    wanted &= shortGates(s);
    if (wanted === 0) return 0;
  }
  let bits = 0;
  if (wanted & Gate.EMAIL && s.indexOf('@') >= 0) bits |= Gate.EMAIL;
  // `sk-` (OpenAI, Anthropic) and `xox?-` (Slack): what precedes each hyphen; `-----BEGIN` (PEM): what follows.
  if (wanted & (Gate.SK_DASH | Gate.SLACK | Gate.PEM)) {
    for (let i = s.indexOf('-'); i >= 0; i = s.indexOf('-', i + 1)) {
      if (i >= 2 && c(s, i - 1) === K && c(s, i - 2) === S) bits |= Gate.SK_DASH;
      else if (i >= 4 && c(s, i - 4) === X && c(s, i - 3) === O && c(s, i - 2) === X) bits |= Gate.SLACK;
      else if (c(s, i + 1) === DASH && s.startsWith('---BEGIN', i + 2)) {
        bits |= Gate.PEM;
        i += 9; // past the run of dashes, which would each be looked at again
      }
    }
  }
  // `sk_` / `rk_` (Stripe), `gh?_` and `github_pat_` (GitHub), `aws_secret_access_key`: before each underscore.
  if (wanted & (Gate.STRIPE | Gate.GITHUB | Gate.AWS)) {
    for (let i = s.indexOf('_', 2); i >= 0; i = s.indexOf('_', i + 1)) {
      const a = c(s, i - 2);
      const b = c(s, i - 1);
      if (b === K && (a === S || a === R)) bits |= Gate.STRIPE;
      else if (i >= 3 && c(s, i - 3) === G && a === H) bits |= Gate.GITHUB;
      else if (i >= 6 && (s.startsWith('github', i - 6))) bits |= Gate.GITHUB;
      else if (i >= 6 && (s.startsWith('secret', i - 6) || s.startsWith('SECRET', i - 6))) bits |= Gate.AWS;
    }
  }
  // `AKIA` / `ASIA` (AWS) and `AIza` (Google): after each capital A.
  if (wanted & (Gate.AWS | Gate.GOOGLE)) {
    for (let i = s.indexOf('A'); i >= 0; i = s.indexOf('A', i + 1)) {
      if (s.startsWith('KIA', i + 1) || s.startsWith('SIA', i + 1)) bits |= Gate.AWS;
      else if (s.startsWith('Iza', i + 1)) bits |= Gate.GOOGLE;
    }
  }
  // `eyJ` (a JWT's header): before each capital J.
  if (wanted & Gate.JWT) {
    for (let i = s.indexOf('J', 2); i >= 0; i = s.indexOf('J', i + 1)) {
      if (c(s, i - 1) === Y && c(s, i - 2) === E) { bits |= Gate.JWT; break; }
    }
  }
  // `bearer`, then `Bearer` and `BEARER` after each capital B (searching for `earer` would stop at every e).
  if (wanted & Gate.BEARER) {
    if (s.indexOf('bearer') >= 0) bits |= Gate.BEARER;
    else {
      for (let i = s.indexOf('B'); i >= 0; i = s.indexOf('B', i + 1)) {
        if (s.startsWith('earer', i + 1) || s.startsWith('EARER', i + 1)) { bits |= Gate.BEARER; break; }
      }
    }
  }
  if (wanted & (Gate.DIGITS | Gate.CARD_DIGITS) && DIGIT_CLUSTER.test(s)) bits |= Gate.DIGITS | Gate.CARD_DIGITS;
  return bits;
}
