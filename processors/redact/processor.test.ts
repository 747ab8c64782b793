// The redact processor's rules around the detectors: where it looks (names, events, links, arrays), the
// three actions globally and per rule, allow and deny keys, user rules, `content: off`, the counts it
// leaves, and the config problems `validate` reports.
import { AttributeList } from '../../model/attributes/list.ts';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AttrValue, Span } from '../../model/span.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { makeSpan } from '../../test/helpers/spans.ts';
import { checkRedactConfig, withDefaults, type RedactConfig } from './config.ts';
import { RedactProcessor } from './processor.ts';
import { SecretMaker } from '../../test/helpers/redact-secrets.ts';

const KEY = 'a-test-key-of-32-bytes-0123456789';
const ENV = { TRACEHOP_REDACT_HASH_KEY: KEY };
const make = new SecretMaker(11);

function run(config: Partial<RedactConfig>, attributes: Record<string, AttrValue>, more: Partial<Span> = {}): Span {
  const span = makeSpan({ attributes: new AttributeList(Object.entries(attributes)), ...more });
  new RedactProcessor(config, ENV).process({ origin: 'otlp', spans: [span] });
  return span;
}

const hmac = (value: string) => createHmac('sha256', KEY).update(value).digest('hex');

describe('redact: where it looks', () => {
  it('span and event names, event and link attributes, array elements at any depth', () => {
    const email = make.email();
    const key = make.openai();
    const span = run({}, { 'ag.data.inputs.messages': ['hi', `mail ${email}`, 3], 'ag.data.inputs.a.b.c.d.e': key, n: 42 }, {
      name: `lookup ${email}`,
      events: [{ name: `sent to ${email}`, timeNs: 1n, attributes: new AttributeList([['body', `key=${key}`]]) }],
      links: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), attributes: new AttributeList([['why', email]]) }],
    });
    expect(span.name).toBe('lookup [REDACTED:email]');
    expect(span.attributes.get('ag.data.inputs.messages')).toEqual(['hi', 'mail [REDACTED:email]', 3]);
    expect(span.attributes.get('ag.data.inputs.a.b.c.d.e')).toBe('[REDACTED:openai]');
    expect(span.attributes.get('n')).toBe(42);
    expect(span.events![0].name).toBe('sent to [REDACTED:email]');
    expect(span.events![0].attributes.get('body')).toBe('key=[REDACTED:openai]');
    expect(span.links![0].attributes.get('why')).toBe('[REDACTED:email]');
    expect(span.attributes.get('ag.meta.redact.email')).toBe(4);
    expect(span.attributes.get('ag.meta.redact.openai')).toBe(2);
  });

  it('a span with nothing to redact is left as it was, with no counts; a second pass changes nothing', () => {
    const span = run({}, { 'ag.data.inputs.q': 'What is the capital of France?' });
    expect([...span.attributes.keys()]).toEqual(['ag.data.inputs.q']);
    const redacted = run({}, { q: make.email() });
    const again = structuredClone([...redacted.attributes]);
    new RedactProcessor({}, ENV).process({ origin: 'otlp', spans: [redacted] });
    expect([...redacted.attributes]).toEqual(again);
  });

  it('a value copied by namespace (the same text under two keys) is redacted under both', () => {
    const text = `Contact ${make.email()} about it. `.repeat(5);
    const span = run({}, { 'gen_ai.prompt.0.content': text, 'ag.data.inputs.prompt.0.content': text });
    expect(span.attributes.get('gen_ai.prompt.0.content')).toBe(span.attributes.get('ag.data.inputs.prompt.0.content'));
    expect(span.attributes.get('ag.meta.redact.email')).toBe(10);
  });
});

describe('redact: actions', () => {
  it('hash: HMAC-SHA256 of the match with the key from the environment; equal values, equal hashes', () => {
    const email = make.email();
    const a = run({ action: 'hash' }, { x: `from ${email}`, y: email, z: make.email() });
    expect(a.attributes.get('x')).toBe(`from [HASH:email:${hmac(email)}]`);
    expect(a.attributes.get('y')).toBe(`[HASH:email:${hmac(email)}]`);
    expect(a.attributes.get('z')).not.toBe(a.attributes.get('y'));
    // Another span, another processor instance: the same value still joins.
    expect(run({ action: 'hash' }, { other: email }).attributes.get('other')).toBe(`[HASH:email:${hmac(email)}]`);
  });

  it('drop removes the attribute (span names are masked instead); per-rule actions beat the global one', () => {
    const span = run({ action: 'drop', actions: { email: 'mask', card: 'hash' } }, {
      keep: 'nothing secret here', gone: `token ${make.github()}`, list: ['ok', make.google()], mail: make.email(), card: '4111 1111 1111 1111',
    }, { name: `call with ${make.github()}` });
    expect(span.attributes.has('gone')).toBe(false);
    expect(span.attributes.has('list')).toBe(false);
    expect(span.attributes.get('keep')).toBe('nothing secret here');
    expect(span.attributes.get('mail')).toBe('[REDACTED:email]');
    expect(span.attributes.get('card')).toBe(`[HASH:card:${hmac('4111 1111 1111 1111')}]`);
    expect(span.name).toBe('call with [REDACTED:github]');
    expect(span.attributes.get('ag.meta.redact.github')).toBe(2);
  });

  it('the hash action without its key is a config problem and a start-up error', () => {
    const config = withDefaults({ action: 'hash', hash_key_env: 'TRACEHOP_TEST_UNSET_KEY' });
    expect(checkRedactConfig(config)).toEqual([
      { key: 'hash_key_env', message: 'the hash action needs an HMAC key: environment variable TRACEHOP_TEST_UNSET_KEY is not set' },
    ]);
    expect(() => new RedactProcessor(config, {})).toThrow(StartupError);
    expect(() => new RedactProcessor(config, { TRACEHOP_TEST_UNSET_KEY: 'short' })).toThrow(/at least 16 bytes/);
    // Only when something hashes: mask needs no key.
    expect(checkRedactConfig(withDefaults({ hash_key_env: 'TRACEHOP_TEST_UNSET_KEY' }))).toEqual([]);
  });
});

describe('redact: keys and user rules', () => {
  it('deny_keys redact whole values whatever they hold; allow_keys are never looked at; globs cover what is below', () => {
    const email = make.email();
    const span = run({ deny_keys: ['**.password', 'app.secret'], allow_keys: ['ag.meta.request.**', 'app.*.owner'] }, {
      'ag.data.inputs.db.password': 'hunter2', 'app.secret.0.value': 42, 'app.secret_not': 'plain', 'ag.meta.request.user': email,
      'app.team.owner': email, 'app.team.deputy': email, password: 'hunter3',
    });
    expect(span.attributes.get('ag.data.inputs.db.password')).toBe('[REDACTED:deny]');
    expect(span.attributes.get('app.secret.0.value')).toBe('[REDACTED:deny]');
    expect(span.attributes.get('app.secret_not')).toBe('plain');
    expect(span.attributes.get('password')).toBe('hunter3');
    expect(span.attributes.get('ag.meta.request.user')).toBe(email);
    expect(span.attributes.get('app.team.owner')).toBe(email);
    expect(span.attributes.get('app.team.deputy')).toBe('[REDACTED:email]');
    expect(span.attributes.get('ag.meta.redact.deny')).toBe(2);
  });

  it('deny with hash and drop; deny wins over allow', () => {
    const hashed = run({ deny_keys: ['user.phone'], actions: { deny: 'hash' } }, { 'user.phone': 'anything' });
    expect(hashed.attributes.get('user.phone')).toBe(`[HASH:deny:${hmac('anything')}]`);
    const dropped = run({ deny_keys: ['user.*'], allow_keys: ['user.*'], actions: { deny: 'drop' } }, { 'user.phone': 'x', other: 'y' });
    expect([...dropped.attributes.keys()]).toEqual(['other', 'ag.meta.redact.deny']);
  });

  it('user rules: a pattern under a name, its own action, a `secret` group replaced alone; only the chosen detectors run', () => {
    const span = run({
      detectors: ['email'],
      rules: [
        { name: 'employee_id', pattern: 'EMP-\\d{6}' },
        { name: 'ticket', pattern: 'ticket=(?<secret>[a-z0-9]+)', ignore_case: true, action: 'hash' },
        { name: 'codename', pattern: 'Falcon' },
      ],
    }, { a: 'EMP-123456 filed TICKET=ab12', b: make.openai(), c: make.email(), d: 'Falcon', e: 'Project Falcon launch plan' });
    expect(span.attributes.get('d')).toBe('[REDACTED:codename]');
    expect(span.attributes.get('e')).toBe('Project [REDACTED:codename] launch plan');
    expect(span.attributes.get('a')).toBe(`[REDACTED:employee_id] filed TICKET=[HASH:ticket:${hmac('ab12')}]`);
    expect(String(span.attributes.get('b')).startsWith('sk-')).toBe(true);
    expect(span.attributes.get('c')).toBe('[REDACTED:email]');
  });

  it('config problems name the key: a bad pattern, a taken name, an action for no rule', () => {
    expect(checkRedactConfig(withDefaults({
      rules: [{ name: 'x', pattern: '(' }, { name: 'email', pattern: 'a' }, { name: 'empty', pattern: 'a*' }],
      actions: { nothing: 'mask' },
    })).map((p) => p.key)).toEqual(['rules.0.pattern', 'rules.1.name', 'rules.2.pattern', 'actions.nothing']);
  });
});

describe('redact: content off', () => {
  it('removes ag.data, the SDK keys it came from and message events; keeps model, metrics, timings, status, ids', () => {
    const base = {
      'ag.type.span': 'chat', 'ag.data.inputs.prompt.0.content': 'hello', 'ag.data.outputs.completion.0.content': 'hi!',
      'gen_ai.prompt.0.content': 'hello', 'gen_ai.completion.0.content': 'hi!', 'llm.input_messages.0.message.content': 'hello',
      'input.value': '{"q":"x"}', 'traceloop.entity.output': '"y"', 'gen_ai.request.model': 'gpt-4o', 'ag.meta.request.model': 'gpt-4o',
      'ag.metrics.tokens.incremental.prompt': 12, 'ag.metrics.costs.incremental.total': 0.0012, 'ag.metrics.duration.cumulative': 1500,
      'gen_ai.usage.input_tokens': 12, 'ag.session.id': 'session-1',
    };
    const events = () => [
      { name: 'gen_ai.user.message', timeNs: 5n, attributes: new AttributeList([['content', 'hello']]) },
      { name: 'gen_ai.choice', timeNs: 6n, attributes: new AttributeList([['message', 'hi!']]) },
      { name: 'exception', timeNs: 7n, attributes: new AttributeList([['exception.type', 'Timeout'], ['gen_ai.prompt', 'x']]) },
    ];
    const span = run({ content: 'off' }, base, { events: events(), status: { code: 2, message: 'timeout' } });
    expect(Object.fromEntries(span.attributes)).toEqual({
      'ag.type.span': 'chat', 'gen_ai.request.model': 'gpt-4o', 'ag.meta.request.model': 'gpt-4o', 'ag.metrics.tokens.incremental.prompt': 12,
      'ag.metrics.costs.incremental.total': 0.0012, 'ag.metrics.duration.cumulative': 1500, 'gen_ai.usage.input_tokens': 12,
      'ag.session.id': 'session-1', 'ag.meta.redact.content': 10,
    });
    expect(span.events!.map((e) => [e.name, Object.fromEntries(e.attributes)])).toEqual([['exception', { 'exception.type': 'Timeout' }]]);
    expect(span.status).toEqual({ code: 2, message: 'timeout' });
    expect([span.startNs, span.endNs]).toEqual([1776363498000000000n, 1776363499500000000n]);
  });
});
