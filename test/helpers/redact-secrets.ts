// Fake secrets of every kind the built-in detectors know, for the tests. Built at run time from a seeded
// generator, so that no secret-shaped literal sits in the source (secret scanners would flag it) and a
// failure reproduces from its seed. None of them was ever a real credential.
import { seededRandom } from './random.ts';
import { luhnValid } from '../../processors/redact/checksums.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const URLSAFE = ALNUM + '-_';

export class SecretMaker {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  /** `n` characters of `alphabet`; when it has both, at least one digit and one letter (as any real random token has). */
  chars(alphabet: string, n: number): string {
    const mixed = /[0-9]/.test(alphabet) && /[A-Za-z]/.test(alphabet);
    for (;;) {
      let out = '';
      for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.random() * alphabet.length)];
      if (!mixed || (/[0-9]/.test(out) && /[A-Za-z]/.test(out))) return out;
    }
  }

  openai(): string { return 'sk-' + 'proj-' + this.chars(URLSAFE, 74); }
  openaiLegacy(): string { return 'sk-' + this.chars(ALNUM, 48); }
  anthropic(): string { return 'sk-' + 'ant-api03-' + this.chars(URLSAFE, 93) + 'AA'; }
  awsKeyId(): string { return 'AK' + 'IA' + this.chars(UPPER_DIGITS, 16); }
  awsSecret(): string { return this.chars(ALNUM + '/+', 40); }
  github(): string { return 'gh' + 'p_' + this.chars(ALNUM, 36); }
  githubFineGrained(): string { return 'github' + '_pat_' + this.chars(ALNUM + '_', 82); }
  google(): string { return 'AI' + 'za' + this.chars(URLSAFE, 35); }
  slack(): string { return 'xo' + 'xb-' + this.chars('0123456789', 12) + '-' + this.chars('0123456789', 13) + '-' + this.chars(ALNUM, 24); }
  stripe(): string { return 'sk' + '_live_' + this.chars(ALNUM, 24); }
  jwt(): string {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: this.chars(ALNUM, 10), iat: 1_700_000_000 })}.${this.chars(URLSAFE, 43)}`;
  }
  bearer(): string { return this.chars(ALNUM + '._~+/-', 40); }
  privateKey(): string {
    const lines = Array.from({ length: 8 }, () => this.chars(ALNUM + '+/', 64));
    return `-----BEGIN ${'PRIVATE'} KEY-----\n${lines.join('\n')}\n-----END ${'PRIVATE'} KEY-----`;
  }
  email(): string { return `${this.chars('abcdefghijklmnopqrstuvwxyz', 7)}.${this.chars('abcdefghijklmnopqrstuvwxyz', 5)}@example-${this.chars('abcdefghij', 4)}.com`; }
  phone(): string { return `+44 20 ${this.chars('0123456789', 4)} ${this.chars('0123456789', 4)}`; }
  /** A Visa number that passes Luhn, grouped in fours. */
  card(): string {
    let body = '4' + Array.from({ length: 14 }, () => Math.floor(this.random() * 10)).join('');
    for (let check = 0; check < 10; check++) {
      if (luhnValid(body + check)) {
        body += check;
        break;
      }
    }
    return body.replace(/(\d{4})(?=\d)/g, '$1 ');
  }
}

/** Published example IBANs (valid check digits) and test card numbers of the card networks. */
export const IBANS = ['GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000', 'FR14 2004 1010 0505 0001 3M02 606', 'NL91ABNA0417164300'];
export const CARDS = ['4111 1111 1111 1111', '5555555555554444', '3782 822463 10005', '6011-1111-1111-1117', '4012888888881881'];
