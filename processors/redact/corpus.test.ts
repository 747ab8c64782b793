// No false positives and no misses on realistic traffic: a corpus of clean LLM spans from several SDKs
// (after namespace, as the daemon runs them) comes out of redact exactly as it went in, and the same
// spans with secrets seeded at varied depths come out with every secret gone.
import { AttributeList } from '../../model/attributes/list.ts';
import { describe, expect, it } from 'vitest';
import type { AttrValue, Span } from '../../model/span.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { factory as namespace } from '../namespace/factory.ts';
import { seededRandom, pickWith } from '../../test/helpers/random.ts';
import { CorpusMaker } from '../../test/helpers/llm-corpus.ts';
import { RedactProcessor } from './processor.ts';
import { CARDS, IBANS, SecretMaker } from '../../test/helpers/redact-secrets.ts';
import { CAPTURED_SDKS, capturedSpans, fillSlots } from '../../test/llm-sdks/payloads.ts';

const SPANS = 1200;

function namespaced(seed: number): Span[] {
  const corpus = new CorpusMaker(seed);
  const spans = Array.from({ length: SPANS }, (_, i) => corpus.span(i));
  namespace.create({ semconv: 'all', propagate_metrics: false }, { id: 'namespace', logger: silentLogger }).process({ origin: 'otlp', spans });
  return spans;
}

/** Everything a span holds that redact may change, as text (bigints included). */
function dump(span: Span): string {
  const attrs = (a: Map<string, AttrValue> | undefined) => (a ? [...a] : []);
  return JSON.stringify({
    name: span.name, attributes: attrs(span.attributes),
    events: span.events?.map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
    links: span.links?.map((l) => attrs(l.attributes)),
  }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

describe('redact on a corpus of clean LLM spans', () => {
  it(`changes none of ${SPANS} clean spans (no false positive)`, () => {
    const spans = namespaced(2026);
    const before = spans.map(dump);
    new RedactProcessor().process({ origin: 'otlp', spans });
    const changed = spans.map((s, i) => [before[i], dump(s)]).filter(([a, b]) => a !== b);
    // On failure, the first changed span's redaction shows what matched.
    expect(changed.slice(0, 1).map(([, after]) => after.match(/.{0,80}\[REDACTED:[a-z_]+\].{0,40}/)?.[0])).toEqual([]);
    expect(spans).toHaveLength(SPANS);
  });

  it('removes every secret seeded at varied depths of the same spans, and spans in = spans out', () => {
    const spans = namespaced(2027);
    const random = seededRandom(99);
    const make = new SecretMaker(5);
    const makers: Array<() => string> = [
      () => make.openai(), () => make.openaiLegacy(), () => make.anthropic(), () => make.awsKeyId(), () => make.github(),
      () => make.githubFineGrained(), () => make.google(), () => make.slack(), () => make.stripe(), () => make.jwt(),
      () => make.privateKey(), () => make.email(), () => make.phone(), () => make.card(), () => pickWith(random, CARDS),
      () => pickWith(random, IBANS), () => `Bearer ${make.bearer()}`,
    ];
    const seeded: string[] = [];
    spans.forEach((span, i) => {
      const secret = makers[i % makers.length]();
      // For `Bearer <token>`, the token is what must go.
      seeded.push(secret.startsWith('Bearer ') ? secret.slice(7) : secret);
      const sentence = `Please use ${secret} for the next call.`;
      switch (i % 6) {
        case 0: span.attributes.set('ag.data.inputs.prompt.3.content', sentence); break;
        case 1: span.attributes.set('ag.data.outputs.tool_calls.0.function.arguments', JSON.stringify({ config: { nested: [1, { key: secret }] } })); break;
        case 2: span.attributes.set('app.tags', ['ok', sentence, 'done']); break;
        case 3: span.events = [...(span.events ?? []), { name: 'log', timeNs: 1n, attributes: new AttributeList([['message', sentence]]) }]; break;
        case 4: span.links = [{ traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), attributes: new AttributeList([['note', sentence]]) }]; break;
        default: span.name = `call ${secret}`;
      }
    });
    new RedactProcessor().process({ origin: 'otlp', spans });
    expect(spans).toHaveLength(SPANS);
    const missed = spans.map((s, i) => ({ secret: seeded[i], text: dump(s) })).filter(({ secret, text }) => text.includes(JSON.stringify(secret).slice(1, -1)));
    expect(missed.map((m) => m.secret)).toEqual([]);
    for (const span of spans) {
      const counts = [...span.attributes].filter(([k]) => k.startsWith('ag.meta.redact.'));
      expect(counts.length).toBeGreaterThan(0);
    }
  });

  it('content: off keeps metrics, model, timings and status byte-identical to an unredacted run, and no payload', () => {
    const plain = namespaced(2028);
    const off = namespaced(2028);
    new RedactProcessor({ content: 'off' }).process({ origin: 'otlp', spans: off });
    const kept = (span: Span) => JSON.stringify({
      metrics: [...span.attributes].filter(([k]) => k.startsWith('ag.metrics.') || k.includes('model') || k.includes('usage') || k.includes('token')),
      times: [span.startNs, span.endNs, span.events?.filter((e) => !e.name.startsWith('gen_ai.')).map((e) => e.timeNs)],
      status: span.status, kind: span.kind, type: [span.spanType, span.traceType],
    }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(off.map(kept)).toEqual(plain.map(kept));
    // Every span had a payload; none is left, and each says how many values went.
    for (const span of off) {
      const payloadLike = [...span.attributes.keys()].filter((k) => !k.startsWith('ag.metrics.') && !/token/i.test(k));
      expect(payloadLike.filter((k) => k.startsWith('ag.data') || k.includes('prompt') || k.includes('completion') ||
        k.includes('messages') || k.startsWith('traceloop.entity.input') || k.startsWith('traceloop.entity.output'))).toEqual([]);
      expect(span.events?.filter((e) => e.name.startsWith('gen_ai.'))).toEqual([]);
      expect(span.attributes.get('ag.meta.redact.content')).toBeGreaterThan(0);
    }
    expect(plain.some((s) => [...s.attributes.keys()].some((k) => k.startsWith('ag.metrics.')))).toBe(true);
  });
});

/**
 * The payloads real SDKs sent (test/fixtures/sdk-payloads: OpenInference, OpenLLMetry, the traceloop
 * SDK's decorators, Langfuse's OpenAI drop-in and its own observations, the Vercel AI SDK's two
 * integrations), each round's copy with the slots the capture left in the prompt and the reply filled
 * by `fill`, then through namespace as the daemon runs them. Returns the spans and, per span, how many
 * of its values held a slot.
 */
function fromCaptures(minimum: number, fill: (round: number, slot: number) => string): { spans: Span[]; filled: number[] } {
  const spans: Span[] = [];
  const filled: number[] = [];
  for (let round = 0; spans.length < minimum; round++) {
    for (const sdk of CAPTURED_SDKS) {
      for (const span of capturedSpans(sdk)) {
        filled.push(fillSlots(span, (slot) => fill(round, slot)));
        spans.push(span);
      }
    }
  }
  namespace.create({ semconv: 'all', propagate_metrics: false }, { id: 'namespace', logger: silentLogger }).process({ origin: 'otlp', spans });
  return { spans, filled };
}

describe('redact on the payloads real SDKs sent', () => {
  it(`changes none of ${SPANS} clean spans built from the captures (no false positive)`, () => {
    const corpus = new CorpusMaker(2029);
    const { spans, filled } = fromCaptures(SPANS, () => corpus.sentence());
    expect(spans.length).toBeGreaterThanOrEqual(SPANS);
    // Every SDK's prompt or reply reached some span: the slots are where the text is.
    expect(filled.filter((n) => n > 0).length).toBeGreaterThan(spans.length / 2);
    const before = spans.map(dump);
    new RedactProcessor().process({ origin: 'otlp', spans });
    const changed = spans.map((s, i) => [before[i], dump(s)]).filter(([a, b]) => a !== b);
    expect(changed.slice(0, 1).map(([, after]) => after.match(/.{0,80}\[REDACTED:[a-z_]+\].{0,40}/)?.[0])).toEqual([]);
  });

  it('removes every secret seeded into the captured prompts and replies, however the SDK encoded them', () => {
    const random = seededRandom(7);
    const make = new SecretMaker(11);
    const makers: Array<() => string> = [
      () => make.openai(), () => make.openaiLegacy(), () => make.anthropic(), () => make.awsKeyId(), () => make.github(),
      () => make.githubFineGrained(), () => make.google(), () => make.slack(), () => make.stripe(), () => make.jwt(),
      () => make.privateKey(), () => make.email(), () => make.phone(), () => make.card(), () => pickWith(random, CARDS),
      () => pickWith(random, IBANS), () => `Bearer ${make.bearer()}`,
    ];
    const seeded: string[] = [];
    const secrets = new Map<string, string>();
    const { spans, filled } = fromCaptures(SPANS, (round, slot) => {
      const key = `${round}/${slot}`;
      let secret = secrets.get(key);
      if (secret === undefined) {
        secret = makers[(round * 3 + slot) % makers.length]();
        secrets.set(key, secret);
        seeded.push(secret.startsWith('Bearer ') ? secret.slice(7) : secret);
      }
      return secret;
    });
    expect(seeded.length).toBeGreaterThan(makers.length * 3);
    new RedactProcessor().process({ origin: 'otlp', spans });
    // A secret is found in any encoding the dump holds it in when any line of it (a PEM key has several) is.
    const text = spans.map(dump).join('\n');
    const missed = seeded.filter((secret) => secret.split('\n').some((line) => line.length >= 12 && !line.startsWith('-----') && text.includes(line)));
    expect(missed).toEqual([]);
    spans.forEach((span, i) => {
      if (filled[i] > 0) expect([...span.attributes.keys()].some((k) => k.startsWith('ag.meta.redact.'))).toBe(true);
    });
  });
});
