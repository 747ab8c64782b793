// The `redact` processor: keeps secrets and personal data out of the tracing backend. Built-in detectors
// (and user rules) run over every string value of span, event and link attributes, array elements
// included, and over span and event names; `deny_keys` redact whole values, `allow_keys` are never looked
// at, and `content: off` removes prompts and completions altogether. What a match becomes is the rule's
// action: `[REDACTED:<rule>]`, `[HASH:<rule>:<hmac>]` (equal values give equal hashes, so they still
// join), or the attribute removed. Spans in = spans out.
//
// Each span that was changed carries `ag.meta.redact.<rule>` = how many values or matches, never what they were.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { REMOVE, rewriteStrings, type StringRewriter } from '../../model/attributes/rewrite.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import type { AttrValue, Attributes, Span, SpanEvent } from '../../model/span.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { CONTENT_RULE, DENY_RULE, hashKey, usesHash, withDefaults, type Action, type RedactConfig } from './config.ts';
import { Gate, builtinDetectors, gates, type Detector } from './detectors.ts';
import { compileContentKeys, compileGlobs, isMessageEvent } from './keys.ts';

/** The shortest text any built-in detector matches (`a@b.co`); user rules see every string. */
const MIN_BUILTIN_CHARS = 6;
/** Values at least this long that were found clean are remembered for the rest of the span: the
 *  namespace copies each message into `ag.data`, so the copy is not scanned a second time. */
const REMEMBER_CHARS = 64;
const REMEMBER_AT_MOST = 32;
/** Key decisions remembered per processor (the keys of a deployment repeat; a hostile client's need not). */
const KEY_CACHE_AT_MOST = 10_000;
/**
 * Short values found clean are remembered across spans (roles, model names, finish reasons, service
 * names repeat in every span, and the decoders hand out the same string object for a repeated value): a
 * direct-mapped table, the slot chosen from the length and two characters, so a hit is a few loads and
 * one pointer comparison (a Set would hash the string). A collision just replaces the slot's value.
 */
const CLEAN_SHORT_SLOTS = 4096;
/** Shorter values are checked at once (a single `indexOf`), cheaper than the lookup. */
const CACHE_SHORT_FROM = 9;
const COUNT_PREFIX = 'ag.meta.redact.';

/** What a key's value is in for. */
const KeyFate = { SCAN: 0, ALLOW: 1, DENY: 2, CONTENT: 3 } as const;
type KeyFate = (typeof KeyFate)[keyof typeof KeyFate];

interface CompiledRule extends Detector {
  /** Index into the per-span counts. */
  index: number;
  action: Action;
  /** Its pattern has a `secret` group (compiled with the `d` flag). */
  secret: boolean;
}

export class RedactProcessor implements SyncProcessor {
  readonly sync = true as const;
  private readonly rules: CompiledRule[];
  /** The OR of every rule's gate: what `gates` needs to look for. */
  private readonly wanted: number;
  private readonly minChars: number;
  /** Gate.USER when there are user rules: they run on every string, whatever `gates` says. */
  private readonly userBit: number;
  private readonly ruleNames: string[];
  private readonly denyRule: number;
  private readonly contentRule: number;
  private readonly denyAction: Action;
  private readonly allow: RegExp | undefined;
  private readonly deny: RegExp | undefined;
  private readonly content: RegExp | undefined;
  /** Some key is allowed, denied or removed: each key's fate is looked up. */
  private readonly keyRules: boolean;
  private readonly keyFates = new Map<string, KeyFate>();
  private readonly cleanShort: string[] = new Array<string>(CLEAN_SHORT_SLOTS).fill('');
  private readonly hmacKey: KeyObject | undefined;
  // Per-span scratch, reset by `process` for each span.
  private readonly counts: Uint32Array;
  private readonly touched: number[] = [];
  private readonly clean: string[] = [];
  /** Set by `text` when a match's action is `drop`. */
  private dropHit = false;
  /** What this processor does to each attribute (model/attributes/rewrite.ts walks them). */
  private readonly rewriter: StringRewriter;

  constructor(partial: Partial<RedactConfig> = {}, env: NodeJS.ProcessEnv = process.env) {
    const config = withDefaults(partial);
    const actionOf = (rule: string, own?: Action): Action => own ?? config.actions[rule] ?? config.action;
    this.ruleNames = [];
    const indexOf = (rule: string) => {
      const at = this.ruleNames.indexOf(rule);
      return at >= 0 ? at : this.ruleNames.push(rule) - 1;
    };
    const detectors: Array<Detector & { own?: Action }> = [
      ...builtinDetectors(config.detectors),
      ...config.rules.map((r) => ({
        rule: r.name, gate: Gate.USER, own: r.action,
        pattern: new RegExp(r.pattern, `g${r.ignore_case ? 'i' : ''}${/\(\?<secret>/.test(r.pattern) ? 'd' : ''}`),
      })),
    ];
    // Every field set, in one order: one object shape for the hot loop.
    this.rules = detectors.map((d) => ({
      rule: d.rule, gate: d.gate, pattern: d.pattern, valid: d.valid, index: indexOf(d.rule),
      action: actionOf(d.rule, d.own), secret: d.pattern.hasIndices,
    }));
    this.wanted = this.rules.reduce((bits, r) => bits | r.gate, 0);
    this.minChars = config.rules.length > 0 ? 1 : MIN_BUILTIN_CHARS;
    this.userBit = config.rules.length > 0 ? Gate.USER : 0;
    this.denyRule = indexOf(DENY_RULE);
    this.contentRule = indexOf(CONTENT_RULE);
    this.denyAction = actionOf(DENY_RULE);
    this.allow = compileGlobs(config.allow_keys);
    this.deny = compileGlobs(config.deny_keys);
    this.content = config.content === 'off' ? compileContentKeys() : undefined;
    this.keyRules = this.allow !== undefined || this.deny !== undefined || this.content !== undefined;
    this.counts = new Uint32Array(this.ruleNames.length);
    const string = (_key: string, s: string): string | typeof REMOVE => {
      const out = this.text(s, true);
      if (!this.dropHit) return out;
      this.dropHit = false;
      return REMOVE;
    };
    this.rewriter = this.keyRules ? { member: (key, v) => this.byKey(key, v), string } : { string };
    if (usesHash(config)) {
      const { key, problem } = hashKey(config, env);
      if (problem !== undefined) throw new StartupError(`processors.redact.hash_key_env: ${problem}`);
      this.hmacKey = createSecretKey(Buffer.from(key!, 'utf8'));
    }
  }

  process(batch: WorkingBatch): void {
    for (const span of batch.spans) this.span(span);
  }

  private span(span: Span): void {
    this.clean.length = 0;
    const name = this.name(span.name);
    if (name !== span.name) span.name = name;
    this.attributes(span.attributes);
    if (span.events) {
      if (this.content !== undefined && span.events.some((e) => isMessageEvent(e.name))) {
        const kept: SpanEvent[] = span.events.filter((e) => !isMessageEvent(e.name));
        this.count(this.contentRule, span.events.length - kept.length);
        span.events = kept;
      }
      for (const event of span.events) {
        const eventName = this.name(event.name);
        if (eventName !== event.name) event.name = eventName;
        this.attributes(event.attributes);
      }
    }
    if (span.links) for (const link of span.links) if (link.attributes) this.attributes(link.attributes);
    if (this.touched.length > 0) this.record(span);
  }

  /** Writes `ag.meta.redact.<rule>` for each rule that acted (added to a count an earlier pass left). */
  private record(span: Span): void {
    const list = span.attributes;
    for (const rule of this.touched) {
      const key = COUNT_PREFIX + this.ruleNames[rule];
      const before = list.get(key);
      list.set(key, (typeof before === 'number' ? before : 0) + this.counts[rule]);
      this.counts[rule] = 0;
    }
    this.touched.length = 0;
  }

  private count(rule: number, n = 1): void {
    if (n === 0) return;
    if (this.counts[rule] === 0) this.touched.push(rule);
    this.counts[rule] += n;
  }

  /** A span or event name: scanned like a value, but never removed (a `drop` masks it instead). */
  private name(name: string): string {
    return this.text(name, false);
  }

  private attributes(attrs: Attributes): void {
    rewriteStrings(attrs, this.rewriter);
  }

  /** A member's fate by its key (allow_keys, deny_keys, content: off); undefined when its strings are scanned. */
  private byKey(key: string, v: AttrValue): AttrValue | typeof REMOVE | undefined {
    switch (this.fate(key)) {
      case KeyFate.ALLOW: return v;
      case KeyFate.CONTENT: this.count(this.contentRule); return REMOVE;
      case KeyFate.DENY: return this.denied(v);
      case KeyFate.SCAN: return undefined;
    }
  }

  private fate(key: string): KeyFate {
    let fate = this.keyFates.get(key);
    if (fate !== undefined) return fate;
    if (this.content?.test(key)) fate = KeyFate.CONTENT;
    else if (key.startsWith(COUNT_PREFIX)) fate = KeyFate.ALLOW;
    else if (this.deny?.test(key)) fate = KeyFate.DENY;
    else if (this.allow?.test(key)) fate = KeyFate.ALLOW;
    else fate = KeyFate.SCAN;
    if (this.keyFates.size >= KEY_CACHE_AT_MOST) this.keyFates.clear();
    this.keyFates.set(key, fate);
    return fate;
  }

  /** A deny key's value, whatever it holds: one marker (or hash) for the whole value, or removed. */
  private denied(v: AttrValue): AttrValue | typeof REMOVE {
    this.count(this.denyRule);
    if (this.denyAction === 'drop') return REMOVE;
    const text = typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
    return this.replacement(DENY_RULE, this.denyAction, text);
  }

  /**
   * `s` with every match replaced; `s` itself when nothing matched (the common case). A `drop` match
   * sets `dropHit` when `mayDrop` (an attribute value), else it is masked (a name).
   */
  private text(s: string, mayDrop: boolean): string {
    if (s.length < this.minChars) return s;
    const remember = s.length >= REMEMBER_CHARS;
    const cacheable = !remember && s.length >= CACHE_SHORT_FROM;
    const slot = cacheable ? (s.length * 61 + s.charCodeAt(s.length - 1) * 31 + s.charCodeAt(s.length >> 1)) & (CLEAN_SHORT_SLOTS - 1) : 0;
    if (cacheable && this.cleanShort[slot] === s) return s;
    if (remember) {
      // Lengths first: comparing two different strings of one length reads them.
      const n = s.length;
      for (let i = 0; i < this.clean.length; i++) {
        const seen = this.clean[i];
        if (seen.length === n && seen === s) return s;
      }
    }
    const bits = gates(s, this.wanted) | this.userBit;
    let out = s;
    if (bits !== 0) {
      for (const rule of this.rules) {
        if ((rule.gate & bits) === 0) continue;
        out = this.apply(out, rule, mayDrop);
        if (this.dropHit) return s;
      }
    }
    if (out === s) {
      if (cacheable) this.cleanShort[slot] = s;
      else if (remember && this.clean.length < REMEMBER_AT_MOST) this.clean.push(s);
    }
    return out;
  }

  private apply(s: string, rule: CompiledRule, mayDrop: boolean): string {
    const re = rule.pattern;
    re.lastIndex = 0;
    let out = '';
    let last = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s)) !== null) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      let start = m.index;
      let end = start + m[0].length;
      if (rule.secret) {
        const at = m.indices?.groups?.secret;
        if (at === undefined) continue;
        [start, end] = at;
      }
      const found = s.slice(start, end);
      if (rule.valid !== undefined && !rule.valid(found)) continue;
      this.count(rule.index);
      if (rule.action === 'drop' && mayDrop) {
        this.dropHit = true;
        return s;
      }
      out += s.slice(last, start) + this.replacement(rule.rule, rule.action === 'drop' ? 'mask' : rule.action, found);
      last = end;
    }
    return last === 0 ? s : out + s.slice(last);
  }

  private replacement(rule: string, action: Action, found: string): string {
    if (action === 'hash') return `[HASH:${rule}:${createHmac('sha256', this.hmacKey!).update(found).digest('hex')}]`;
    return `[REDACTED:${rule}]`;
  }
}
