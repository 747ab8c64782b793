// The cost processor on spans namespace has laid out, checked against prices written out by hand from the
// table of the pinned @pydantic/genai-prices (gpt-4o 2.5/10, claude-3-5-sonnet 3/15, text-embedding-3-small
// 0.02 USD per million tokens), and against the library's own calculation where a price has tiers.
import { AttributeList } from '../../model/attributes/list.ts';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import type { WorkingBatch } from '../../model/batch.ts';
import type { AttrValue, Span } from '../../model/span.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { ServiceMetrics } from '../../pipeline/telemetry/metrics.ts';
import { syncChain } from '../../pipeline/component.ts';
import { NamespaceProcessor } from '../namespace/processor.ts';
import { RedactProcessor } from '../redact/processor.ts';
import { checkCostConfig } from './config.ts';
import { factory } from './factory.ts';
import { CostProcessor, type CostOptions } from './processor.ts';
import { readPricesFile } from './prices-file.ts';

const START = 1_776_363_498_000_000_000n;
let nextId = 1;
function span(attrs: Record<string, AttrValue>, extra: Partial<Span> = {}): Span {
  return {
    traceId: 'cccccccccccccccccccccccccccccccc', spanId: (nextId++).toString(16).padStart(16, '0'), name: 'llm', kind: 3,
    startNs: START, endNs: START + 2_000_000_000n, status: { code: 0 }, attributes: new AttributeList(Object.entries(attrs)), ...extra,
  };
}

/** namespace (every batch mapped, propagation as asked) then cost, as the pipeline runs them. */
/** A cost processor after its start (which loads the price library). */
async function started(options?: CostOptions): Promise<CostProcessor> {
  const p = new CostProcessor(options);
  await p.start();
  return p;
}

function run(cost: CostProcessor, spans: Span[], propagate = false): Span[] {
  const batch: WorkingBatch = { origin: 'otlp', spans };
  for (const step of syncChain([new NamespaceProcessor({ semconv: 'all', propagate_metrics: propagate }), cost])) step.process(batch);
  return spans;
}

const genai = (model: string, prompt: number, completion: number | undefined, more: Record<string, AttrValue> = {}) => ({
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': prompt,
  ...(completion === undefined ? {} : { 'gen_ai.usage.output_tokens': completion }), ...more,
});
const costs = (s: Span) => [0, 1, 2].map((j) => s.attributes.get(`ag.metrics.costs.incremental.${['prompt', 'completion', 'total'][j]}`));

describe('cost: known models, tokens x the table\'s prices', () => {
  it('gpt-4o, a dated claude-3-5-sonnet with its provider, and an embedding model', async () => {
    const p = await started();
    const [gpt, claude, embed] = run(p, [
      span(genai('gpt-4o', 1000, 500)),
      span(genai('claude-3-5-sonnet-20241022', 2000, 300, { 'gen_ai.system': 'anthropic' })),
      span({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.system': 'openai', 'gen_ai.usage.input_tokens': 5000 }),
    ]);
    const near = (got: unknown[], want: number[]) => want.forEach((w, j) => expect(got[j] as number).toBeCloseTo(w, 12));
    near(costs(gpt), [1000 * 2.5e-6, 500 * 10e-6, 1000 * 2.5e-6 + 500 * 10e-6]);
    near(costs(claude), [2000 * 3e-6, 300 * 15e-6, 2000 * 3e-6 + 300 * 15e-6]);
    near(costs(embed), [5000 * 0.02e-6, 0, 5000 * 0.02e-6]);
    expect([p.priced, p.unknown]).toEqual([3, 0]);
  });

  it('writes the keys in their slot, so namespace run again changes nothing (key order included)', async () => {
    const [s] = run(await started(), [span(genai('gpt-4o', 10, 20, { 'ag.tags.team': 'a', 'x.other': 1 }))]);
    const keys = [...s.attributes.keys()];
    const at = keys.indexOf('ag.metrics.costs.incremental.prompt');
    expect(keys.slice(at - 1, at + 4)).toEqual(['ag.metrics.tokens.incremental.total', 'ag.metrics.costs.incremental.prompt',
      'ag.metrics.costs.incremental.completion', 'ag.metrics.costs.incremental.total', 'ag.tags.team']);
    const before = [...s.attributes];
    new NamespaceProcessor({ semconv: 'all' }).process({ origin: 'otlp', spans: [s] });
    expect([...s.attributes]).toEqual(before);
  });

  it('a cache of one model still prices every model right as it starts again', async () => {
    const p = await started({ max_cached_models: 1 });
    const spans = run(p, [span(genai('gpt-4o', 1000, 0)), span(genai('claude-3-5-sonnet', 1000, 0)), span(genai('gpt-4o', 1000, 0)), span(genai('acme-x', 1, 1))]);
    expect(spans.map((s) => costs(s)[0])).toEqual([1000 * 2.5 / 1e6, 1000 * 3 / 1e6, 1000 * 2.5 / 1e6, undefined]);
  });

  it('a tiered price (gemini-1.5-pro over 128k prompt tokens) is the library\'s own calculation', async () => {
    const [s] = run(await started(), [span(genai('gemini-1.5-pro', 200_000, 1000, { 'gen_ai.system': 'google' }))]);
    const want = calcPrice({ input_tokens: 200_000, output_tokens: 1000 }, 'gemini-1.5-pro', { providerId: 'google' })!;
    expect(costs(s)).toEqual([want.input_price, want.output_price, want.input_price + want.output_price]);
    // Over the tier, so not the base price of 1.25 per million.
    expect(want.input_price).not.toBeCloseTo(200_000 * 1.25e-6, 6);
  });

  it('only chat, completion and embedding spans by default; span_types widens it', async () => {
    const attrs = { 'ag.type.span': 'llm', 'ag.meta.request.model': 'gpt-4o', 'ag.metrics.tokens.incremental.prompt': 100 };
    expect(costs(run(await started(), [span(attrs)])[0])[0]).toBeUndefined();
    expect(costs(run(await started({ span_types: ['llm'] }), [span(attrs)])[0])[0]).toBeCloseTo(100 * 2.5e-6, 12);
    expect(costs(run(await started(), [span({ ...attrs, 'ag.type.span': 'tool' })])[0])[0]).toBeUndefined();
  });
});

describe('cost: what it leaves alone', () => {
  it('a client that sent a cost keeps it, even one part of it', async () => {
    const [s] = run(await started(), [span(genai('gpt-4o', 1000, 500, { 'ag.metrics.costs.incremental.total': 42 }))]);
    expect(costs(s)).toEqual([undefined, undefined, 42]);
  });

  it('an unknown model gets no cost, is counted and logged once', async () => {
    const warnings: unknown[] = [];
    const logger = { warn: (msg: string, fields?: unknown) => warnings.push([msg, fields]), info() {}, error() {}, debug() {}, child: () => logger };
    const p = await started({ logger: logger as never });
    const spans = run(p, [span(genai('acme-llm-9', 10, 10)), span(genai('acme-llm-9', 5, 5)), span(genai('gpt-4o', 1, 1))]);
    expect(costs(spans[0])).toEqual([undefined, undefined, undefined]);
    expect([p.priced, p.unknown]).toEqual([1, 2]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toEqual([expect.stringContaining('no price'), { model: 'acme-llm-9', provider: undefined }]);
  });

  it('counts priced and unknown-model spans once per batch in the daemon\'s metrics, at 0 from the start', async () => {
    const metrics = new ServiceMetrics();
    const p = factory.create({ span_types: ['chat'], max_cached_models: 8 }, { id: 'cost', logger: silentLogger, metrics: (o) => metrics.processor('cost', o) });
    await p.start!();
    const lines = async () => (await metrics.text()).split('\n').filter((l) => l.startsWith('tracehop_processor_spans_total'));
    expect(await lines()).toEqual(['tracehop_processor_spans_total{processor="cost",outcome="priced"} 0', 'tracehop_processor_spans_total{processor="cost",outcome="unknown_model"} 0']);
    const batch: WorkingBatch = { origin: 'otlp', spans: [span(genai('gpt-4o', 1, 1)), span(genai('gpt-4o', 2, 2)), span(genai('acme-llm-9', 1, 1))] };
    new NamespaceProcessor({ semconv: 'all' }).process(batch);
    p.process(batch);
    expect(await lines()).toEqual(['tracehop_processor_spans_total{processor="cost",outcome="priced"} 2', 'tracehop_processor_spans_total{processor="cost",outcome="unknown_model"} 1']);
  });

  it('no model or no tokens: nothing to price, nothing counted', async () => {
    const p = await started();
    const spans = run(p, [span({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 3 }), span({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' })]);
    expect(spans.map((s) => costs(s)[2])).toEqual([undefined, undefined]);
    expect([p.priced, p.unknown]).toEqual([0, 0]);
  });
});

describe('cost: the user prices file', () => {
  const write = async (text: string, name = 'prices.yaml') => {
    const file = join(await mkdtemp(join(tmpdir(), 'cost-')), name);
    await writeFile(file, text);
    return file;
  };

  it('overrides a table price, adds a model by exact name or glob; exact wins over a glob', async () => {
    const file = await write('models:\n  gpt-4o: {input: 1, output: 2}\n  "ft:gpt-4o-mini:*": {input: 0.5, output: 4}\n  ft:gpt-4o-mini:acme:x: {input: 7}\n');
    const user = readPricesFile(file);
    if (typeof user === 'string') throw new Error(user);
    const p = await started({ user });
    const [a, b, c] = run(p, [span(genai('GPT-4o', 1e6, 1e6)), span(genai('ft:gpt-4o-mini:acme:y', 2e6, 1e6)), span(genai('ft:gpt-4o-mini:acme:x', 1e6, 9))]);
    expect(costs(a)).toEqual([1, 2, 3]);
    expect(costs(b)).toEqual([1, 4, 5]);
    expect(costs(c)).toEqual([7, 0, 7]);
  });

  it('JSON is accepted; a bad file is a clear problem naming the entry', async () => {
    expect(typeof readPricesFile(await write('{"models": {"m": {"input": 1, "output": 1}}}', 'p.json'))).toBe('object');
    const problem = async (text: string) => checkCostConfig({ prices_file: await write(text), span_types: [], max_cached_models: 1 });
    expect(await problem('models:\n  m: {input: -1}\n')).toEqual([{ key: 'prices_file', message: expect.stringContaining('models."m".input must be a number of USD per million tokens') }]);
    expect(await problem('models:\n  m: {input: 1, ouput: 2}\n')).toEqual([{ key: 'prices_file', message: expect.stringContaining('models."m".ouput is not a known key') }]);
    expect(await problem('prices: {}\n')).toEqual([{ key: 'prices_file', message: expect.stringContaining('"prices" is not a known key') }]);
    expect(await problem('models: [1')).toEqual([{ key: 'prices_file', message: expect.stringContaining('is not YAML or JSON') }]);
    expect(checkCostConfig({ prices_file: '/nonexistent/prices.yaml', span_types: [], max_cached_models: 1 }))
      .toEqual([{ key: 'prices_file', message: 'cannot read /nonexistent/prices.yaml: ENOENT' }]);
    expect(() => factory.create({ prices_file: '/nonexistent/p.yaml', span_types: [], max_cached_models: 1 }, { id: 'cost', logger: console as never }))
      .toThrow('cost: prices_file: cannot read /nonexistent/p.yaml: ENOENT');
  });
});

describe('cost: cumulative costs with namespace\'s propagate_metrics', () => {
  it('computed costs add up into the parents as client costs do; unattached spans are left out', async () => {
    const root = span({ 'ag.type.span': 'workflow' });
    const chat = span(genai('gpt-4o', 1000, 500), { parentId: root.spanId, startNs: START + 1n });
    const client = span({ 'ag.type.span': 'tool', 'ag.metrics.costs.incremental.total': 0.25 }, { parentId: root.spanId, startNs: START + 2n });
    const embed = span({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.system': 'openai', 'gen_ai.usage.input_tokens': 5000 },
      { parentId: chat.spanId, startNs: START + 3n });
    const orphan = span(genai('gpt-4o', 1, 1), { parentId: 'ffffffffffffffff' });
    run(await started(), [embed, client, chat, root, orphan], true);
    const cum = (s: Span) => ['prompt', 'completion', 'total'].map((k) => s.attributes.get(`ag.metrics.costs.cumulative.${k}`) as number);
    const e = 5000 * 0.02e-6;
    const near = (got: number[], want: number[]) => want.forEach((w, j) => expect(got[j]).toBeCloseTo(w, 12));
    near(cum(embed), [e, 0, e]);
    near(cum(chat), [1000 * 2.5e-6 + e, 500 * 10e-6, 1000 * 2.5e-6 + 500 * 10e-6 + e]);
    near(cum(root), [1000 * 2.5e-6 + e, 500 * 10e-6, 1000 * 2.5e-6 + 500 * 10e-6 + e + 0.25]);
    expect(cum(orphan)).toEqual([undefined, undefined, undefined]);
    // In its slot: right after the incremental costs, the same place namespace puts it.
    const keys = [...root.attributes.keys()];
    expect(keys.indexOf('ag.metrics.costs.cumulative.prompt')).toBe(keys.indexOf('ag.metrics.tokens.cumulative.total') + 1);
    // Without propagation nothing cumulative is written.
    const [alone] = run(await started(), [span(genai('gpt-4o', 1, 1))]);
    expect(cum(alone)).toEqual([undefined, undefined, undefined]);
  });

  it('sums once, after cost and before redact: a denied cost key hides the cumulative costs too', async () => {
    const root = span({ 'ag.type.span': 'workflow' });
    const chat = span(genai('gpt-4o', 1000, 500), { parentId: root.spanId, startNs: START + 1n });
    const namespace = new NamespaceProcessor({ semconv: 'all', propagate_metrics: true });
    const redact = new RedactProcessor({ deny_keys: ['ag.metrics.costs.*'] });
    const chain = syncChain([namespace, await started(), redact]);
    expect(chain.indexOf(namespace.afterMetrics!)).toBe(2);
    for (const step of chain) step.process({ origin: 'otlp', spans: [root, chat] });
    for (const s of [root, chat]) {
      expect(['prompt', 'completion', 'total'].map((k) => s.attributes.get(`ag.metrics.costs.cumulative.${k}`))).toEqual(Array(3).fill('[REDACTED:deny]'));
    }
    // Tokens are not denied: summed as usual.
    expect(root.attributes.get('ag.metrics.tokens.cumulative.total')).toBe(1500);
  });
});
