// Each built-in detector on text that holds its kind of secret (redacted, and nothing around it) and on
// look-alikes that must stay (Luhn-invalid cards, IBANs with wrong check digits, versions, ids, dates).
import { AttributeList } from '../../model/attributes/list.ts';
import { describe, expect, it } from 'vitest';
import { cardValid, ibanValid, luhnValid } from './checksums.ts';
import { BUILTIN_RULES } from './detectors.ts';
import { RedactProcessor } from './processor.ts';
import { CARDS, IBANS, SecretMaker } from '../../test/helpers/redact-secrets.ts';
import { makeSpan } from '../../test/helpers/spans.ts';

const processor = new RedactProcessor();

/** `text` as the value of one attribute after redact. */
function redact(text: string): string {
  const span = makeSpan({ attributes: new AttributeList([['ag.data.inputs.prompt.0.content', text]]) });
  processor.process({ origin: 'otlp', spans: [span] });
  return span.attributes.get('ag.data.inputs.prompt.0.content') as string;
}

const make = new SecretMaker(7);
const positives: Array<[string, string]> = [
  ['openai', make.openai()], ['openai', make.openaiLegacy()], ['anthropic', make.anthropic()], ['aws', make.awsKeyId()],
  ['github', make.github()], ['github', make.githubFineGrained()], ['google', make.google()], ['slack', make.slack()],
  ['stripe', make.stripe()], ['jwt', make.jwt()], ['private_key', make.privateKey()], ['email', make.email()],
  ['email', 'jane.doe+llm@mail.example.co.uk'], ['phone', make.phone()], ['phone', '+1 (415) 555-0132'], ['phone', '(415) 555-0132'],
  ['phone', '415-555-0132'], ['phone', '+4915112345678'], ...CARDS.map((c): [string, string] => ['card', c]),
  ['card', make.card()], ...IBANS.map((i): [string, string] => ['iban', i]),
];

describe('built-in detectors find their secrets', () => {
  for (const [rule, secret] of positives) {
    it(`${rule}: ${secret.slice(0, 24)}...`, () => {
      const text = `Here it is: ${secret}. Thanks!`;
      expect(redact(text)).toBe(`Here it is: [REDACTED:${rule}]. Thanks!`);
      // Alone, at the start and the end of a value, and inside JSON text.
      expect(redact(secret)).toBe(`[REDACTED:${rule}]`);
      expect(redact(JSON.stringify({ value: secret }))).toBe(JSON.stringify({ value: `[REDACTED:${rule}]` }));
    });
  }

  it('bearer: the token after the word, the word kept', () => {
    const token = make.bearer();
    expect(redact(`curl -H "Authorization: Bearer ${token}" https://api.example.com`))
      .toBe('curl -H "Authorization: Bearer [REDACTED:bearer]" https://api.example.com');
    expect(redact(`{"authorization": "bearer ${token}"}`)).toBe('{"authorization": "bearer [REDACTED:bearer]"}');
    // A JWT after Bearer is found as a JWT (its own rule), and the bearer rule does not see it again.
    const jwt = make.jwt();
    expect(redact(`Authorization: Bearer ${jwt}`)).toBe('Authorization: Bearer [REDACTED:jwt]');
  });

  it('aws: a secret access key beside its name', () => {
    const secret = make.awsSecret();
    expect(redact(`aws_secret_access_key = ${secret}`)).toBe('aws_secret_access_key = [REDACTED:aws]');
    expect(redact(`{"AWS_SECRET_ACCESS_KEY": "${secret}"}`)).toBe('{"AWS_SECRET_ACCESS_KEY": "[REDACTED:aws]"}');
  });

  it('private_key: a block cut before its END is redacted to where the base64 stops', () => {
    const block = make.privateKey();
    const cut = block.slice(0, 200);
    expect(redact(`key: ${cut}`)).toBe('key: [REDACTED:private_key]');
  });

  it('several secrets in one value, each counted', () => {
    const span = makeSpan({ attributes: new AttributeList([['note', `${make.email()} and ${make.email()} paid with ${CARDS[0]}`]]) });
    processor.process({ origin: 'otlp', spans: [span] });
    expect(span.attributes.get('note')).toBe('[REDACTED:email] and [REDACTED:email] paid with [REDACTED:card]');
    expect(span.attributes.get('ag.meta.redact.email')).toBe(2);
    expect(span.attributes.get('ag.meta.redact.card')).toBe(1);
  });

  it('every built-in rule has a positive case here', () => {
    expect(new Set([...positives.map(([r]) => r), 'bearer'])).toEqual(new Set(BUILTIN_RULES));
  });
});

describe('look-alikes are left alone', () => {
  const negatives = [
    // cards: Luhn-invalid, a prefix no network uses, a millisecond timestamp, a decimal's digits
    '4111 1111 1111 1112', '4111111111111112', '1234567812345678', '1718900000000', '0.41421356237309515', '9999 9999 9999 9995',
    // IBANs with a wrong check digit, and a valid layout with a wrong checksum
    'GB83 WEST 1234 5698 7654 32', 'DE88370400440532013000', 'NL92ABNA0417164300',
    // phones: dates, times, versions, ids, counts, unix seconds, an IP, a port
    '2024-01-15', '2024-01-15T10:30:00.000Z', '10:30:00+05:30', 'v1.2.3', '1.22.333', '192.168.100.200', '1700000000',
    'took 1234567 ms', 'localhost:8080', '+12', 'order 123-45', 'increase of +3.5%', '555-1234',
    // emails: packages, retina images, decorators, an npm scope, a mention
    'lodash@4.17.21', 'icon@2x.png', '@app.route("/")', '@types/node', 'ping @alice please', 'user@localhost',
    // tokens: words after sk-, bearer in prose, ids and hashes
    'sk-learn-compatible-estimators-are-great', 'the bearer of bad news arrived', 'bearer token authentication works like this',
    'task-force-alpha-and-bravo-teams', '123e4567-e89b-12d3-a456-426614174000', '4bf92f3577b34da6a3ce929d0e0e4736',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'eyJ is how base64 of {" starts',
    'AKIA is the prefix of an AWS key id', 'ghp_ alone is no token', 'sk_live_ too short', 'xoxb-no-digits-here-at-all',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ\n-----END CERTIFICATE-----',
  ];
  for (const text of negatives) {
    it(JSON.stringify(text), () => {
      expect(redact(text)).toBe(text);
    });
  }
});

describe('checksums', () => {
  it('Luhn, card layouts and IBAN mod-97 against published examples', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    for (const c of CARDS) expect(cardValid(c)).toBe(true);
    expect(cardValid('4111 1111 1111 1112')).toBe(false);
    // Visa is 13, 16 or 19 digits: a Luhn-valid 15-digit number starting with 4 is not a card.
    const fifteen = Array.from({ length: 10 }, (_, d) => `41111111111111${d}`).find(luhnValid)!;
    expect(fifteen).toHaveLength(15);
    expect(cardValid(fifteen)).toBe(false);
    for (const i of IBANS) expect(ibanValid(i)).toBe(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 33')).toBe(false);
  });
});
