// `processors.redact` settings: which detectors run, what happens to what they find, which attribute keys
// are always or never redacted, and whether prompt and completion payloads are kept at all.
import type { JsonSchema } from '../../pipeline/component.ts';
import { object, oneOf } from '../../pipeline/schema.ts';
import { BUILTIN_RULES } from './detectors.ts';

export const ACTIONS = ['mask', 'hash', 'drop'] as const;
export type Action = (typeof ACTIONS)[number];

/** A user rule: a JavaScript regular expression whose matches are redacted under `name`. */
export interface UserRule {
  name: string;
  pattern: string;
  ignore_case?: boolean;
  action?: Action;
}

export interface RedactConfig {
  /** The built-in detectors that run (default: every one). */
  detectors: string[];
  /** What a match becomes, unless `actions` or the user rule says otherwise. */
  action: Action;
  /** Per rule (a built-in detector, `deny`): its action. */
  actions: Record<string, Action>;
  rules: UserRule[];
  /** Keys (globs) never looked at. */
  allow_keys: string[];
  /** Keys (globs) whose whole value is redacted under the rule `deny`, whatever it holds. */
  deny_keys: string[];
  /** The environment variable holding the HMAC key of the `hash` action. */
  hash_key_env: string;
  /** `off`: every prompt and completion payload is removed (ag.data, its sources, message events). */
  content: 'on' | 'off';
}

/** Rule names the processor gives itself: a user rule may not take them. */
export const DENY_RULE = 'deny';
export const CONTENT_RULE = 'content';
export const DEFAULT_HASH_KEY_ENV = 'TRACEHOP_REDACT_HASH_KEY';
/** A shorter HMAC key makes the hashes of short values (phone numbers) easier to reverse by trying them. */
export const MIN_HASH_KEY_BYTES = 16;
const RULE_NAME = '^[a-z][a-z0-9_]{0,39}$';
const GLOB = { type: 'string', minLength: 1, pattern: '^[^\\s]+$' };
const action = oneOf(ACTIONS, 'mask');

export const schema: JsonSchema = object({
  detectors: { type: 'array', items: { type: 'string', enum: [...BUILTIN_RULES] }, uniqueItems: true, default: [...BUILTIN_RULES] },
  action,
  actions: { type: 'object', propertyNames: { pattern: RULE_NAME }, additionalProperties: { type: 'string', enum: [...ACTIONS] }, default: {} },
  rules: {
    type: 'array',
    default: [],
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'pattern'],
      properties: {
        name: { type: 'string', pattern: RULE_NAME },
        pattern: { type: 'string', minLength: 1 },
        ignore_case: { type: 'boolean', default: false },
        action: { type: 'string', enum: [...ACTIONS] },
      },
    },
  },
  allow_keys: { type: 'array', items: GLOB, default: [] },
  deny_keys: { type: 'array', items: GLOB, default: [] },
  hash_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', default: DEFAULT_HASH_KEY_ENV },
  content: oneOf(['on', 'off'], 'on'),
});

/** The config with every default filled in (for a processor built by hand, in a test). */
export function withDefaults(config: Partial<RedactConfig>): RedactConfig {
  return {
    detectors: config.detectors ?? [...BUILTIN_RULES],
    action: config.action ?? 'mask',
    actions: config.actions ?? {},
    rules: config.rules ?? [],
    allow_keys: config.allow_keys ?? [],
    deny_keys: config.deny_keys ?? [],
    hash_key_env: config.hash_key_env ?? DEFAULT_HASH_KEY_ENV,
    content: config.content ?? 'on',
  };
}

/** Whether some rule that runs (a detector, a user rule, `deny`) hashes what it finds. */
export function usesHash(config: RedactConfig): boolean {
  const ruleAction = (rule: string) => config.actions[rule] ?? config.action;
  return config.detectors.some((d) => ruleAction(d) === 'hash') ||
    config.rules.some((r) => (r.action ?? ruleAction(r.name)) === 'hash') ||
    (config.deny_keys.length > 0 && ruleAction(DENY_RULE) === 'hash');
}

/** The HMAC key from the environment, or the problem with it. */
export function hashKey(config: RedactConfig, env: NodeJS.ProcessEnv = process.env): { key?: string; problem?: string } {
  const key = env[config.hash_key_env];
  if (key === undefined || key === '') return { problem: `the hash action needs an HMAC key: environment variable ${config.hash_key_env} is not set` };
  if (Buffer.byteLength(key, 'utf8') < MIN_HASH_KEY_BYTES) {
    return { problem: `environment variable ${config.hash_key_env} must hold at least ${MIN_HASH_KEY_BYTES} bytes (got ${Buffer.byteLength(key, 'utf8')})` };
  }
  return { key };
}

export function checkRedactConfig(config: RedactConfig): Array<{ key: string; message: string }> {
  const problems: Array<{ key: string; message: string }> = [];
  const names = new Set<string>([...BUILTIN_RULES, DENY_RULE, CONTENT_RULE]);
  config.rules.forEach((rule, i) => {
    if (names.has(rule.name)) problems.push({ key: `rules.${i}.name`, message: `"${rule.name}" is taken (a built-in detector, deny, content or an earlier rule)` });
    names.add(rule.name);
    try {
      if (new RegExp(rule.pattern, 'g').test('')) problems.push({ key: `rules.${i}.pattern`, message: 'matches the empty string' });
    } catch (e) {
      problems.push({ key: `rules.${i}.pattern`, message: `is not a valid regular expression: ${(e as Error).message}` });
    }
  });
  for (const rule of Object.keys(config.actions)) {
    if (!names.has(rule) || rule === CONTENT_RULE) problems.push({ key: `actions.${rule}`, message: `names no rule: use a built-in detector, deny, or a rule under rules` });
  }
  if (usesHash(config)) {
    const { problem } = hashKey(config);
    if (problem) problems.push({ key: 'hash_key_env', message: problem });
  }
  return problems;
}
