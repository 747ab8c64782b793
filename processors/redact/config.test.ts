// The redact settings through the real config loader and registry: defaults, `validate`'s problems with
// their place in the file, and the pipeline order (after namespace, before limit).
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../cmd/components.ts';
import { loadConfigText } from '../../config/load.ts';
import { ConfigError, formatProblem } from '../../config/problem.ts';
import { BUILTIN_RULES } from './detectors.ts';

const config = (processors: string, list: string) => `receivers:
  otlp: {protocols: {http: {}}}
processors:
${processors}
exporters:
  file: {path: out.jsonl}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [${list}], exporters: [file]}
`;

function load(text: string, env: NodeJS.ProcessEnv = {}): { problems: string[]; redact?: Record<string, unknown> } {
  try {
    const loaded = loadConfigText(text, 'c.yaml', builtinRegistry(), env, []);
    return { problems: [], redact: loaded.processors.get('redact')?.config };
  } catch (err) {
    if (err instanceof ConfigError) return { problems: err.problems.map(formatProblem) };
    throw err;
  }
}

describe('redact config', () => {
  it('listed without settings, it runs every built-in detector with mask', () => {
    const { problems, redact } = load(config('  batch: {}', 'namespace, redact, limit, batch'));
    expect(problems).toEqual([]);
    expect(redact).toEqual({
      detectors: [...BUILTIN_RULES], action: 'mask', actions: {}, rules: [], allow_keys: [], deny_keys: [],
      hash_key_env: 'TRACEHOP_REDACT_HASH_KEY', content: 'on',
    });
  });

  it('problems name their key and place', () => {
    const text = config(`  redact:
    detectors: [email, fax]
    action: shred
    rules:
      - {name: Bad-Name, pattern: x}
      - {name: ok, pattern: '('}
    actions: {email: hash}`, 'namespace, redact');
    expect(load(text).problems).toEqual([
      'c.yaml:5:24 processors.redact.detectors.1: must be one of: private_key, jwt, anthropic, openai, aws, github, google, slack, stripe, bearer, email, iban, card, phone',
      'c.yaml:6:13 processors.redact.action: must be one of: mask, hash, drop',
      'c.yaml:8:16 processors.redact.rules.0.name: must match pattern "^[a-z][a-z0-9_]{0,39}$"',
    ]);
    const semantic = config(`  redact:
    rules:
      - {name: ok, pattern: '('}
    actions: {email: hash}`, 'namespace, redact');
    expect(load(semantic).problems.map((p) => p.replace(/: is not a valid regular expression.*/, ': is not a valid regular expression'))).toEqual([
      'c.yaml:6:29 processors.redact.rules.0.pattern: is not a valid regular expression',
      'c.yaml:4:3 processors.redact.hash_key_env: the hash action needs an HMAC key: environment variable TRACEHOP_REDACT_HASH_KEY is not set',
    ]);
  });

  it('comes after namespace and before limit in a pipeline', () => {
    expect(load(config('  batch: {}', 'namespace, limit, redact, batch')).problems).toEqual([
      'c.yaml:9:64 service.pipelines.traces.processors.2: "redact" must come before limit',
    ]);
    expect(load(config('  batch: {}', 'redact, namespace, batch')).problems).toEqual([
      'c.yaml:9:54 service.pipelines.traces.processors.1: "namespace" must come before redact',
    ]);
  });
});
