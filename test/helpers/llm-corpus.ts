// A corpus of realistic LLM-call spans as instrumentations send them (OpenTelemetry GenAI, OpenInference,
// OpenLLMetry/traceloop, the Vercel AI SDK, Agenta's own keys): prompts and answers with numbers, dates,
// prices and versions, tool calls with JSON arguments, ids of every usual shape (UUIDs, trace ids, hex
// digests, provider response ids), timestamps, URLs and code. None holds a secret: the corpus test
// asserts redact changes none of them. Seeded, so a false positive reproduces.
import { AttributeList } from '../../model/attributes/list.ts';
import { seededRandom, pickWith } from './random.ts';
import type { AttrValue, Span } from '../../model/span.ts';
import { makeSpan } from './spans.ts';

const CITIES = ['Paris', 'Tokyo', 'São Paulo', 'Zürich', 'New York', 'Lagos', 'Mumbai', 'Sydney', 'Kraków', '東京'];
const MODELS = ['gpt-4o', 'gpt-4o-2024-08-06', 'claude-3-5-sonnet-20241022', 'gemini-1.5-pro-002', 'mistral-large-2407', 'llama-3.1-70b-instruct'];
const QUESTIONS = [
  'What is the weather in {city} on {date}?',
  'Summarise the attached report (version {version}) in 3 bullet points.',
  'Convert {amount} USD to EUR at a rate of {rate}.',
  'Write a Python function that returns the {n}th Fibonacci number.',
  'How many days are there between {date} and {date2}?',
  'Explain the difference between TCP port {port} and UDP port {port2}.',
  'Our order #{order} shipped on {date}; when will it arrive in {city}?',
  'Translate "the meeting is at {time}" into French.',
  'Is {ip} a private address? The server listens on localhost:{port}.',
  'Review this diff: commit {sha} changed {n} files, +{n2}/-{n3} lines.',
  'Which npm package is lodash@{version}, and is @types/node needed with it?',
  'Fix the bug in `for i in range({n}): total += prices[i] * 1.{n2}`.',
  'Solve 3x^2 + {n}x - {n2} = 0 and give both roots to 4 decimals.',
  'The reading was {float} at {iso}; is that above the threshold of {rate}?',
  'The customer-facing state-of-the-art model handles follow-up questions well; compare it to {model}.',
];
const ANSWERS = [
  'In {city} on {date} expect a high of {n}°C, a low of {n2}°C and {n3}% chance of rain.',
  'Here is the function:\n```python\ndef fib(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```\nfib({n}) = {big}.',
  '{amount} USD is about {amount2} EUR at {rate}.',
  'There are {n} days between {date} and {date2} (inclusive: {n2}).',
  '| metric | value |\n|---|---|\n| p50 latency | {n} ms |\n| p99 latency | {n2} ms |\n| requests | {big} |',
  'The roots are x = {float} and x = -{float2}.',
  'Yes: {ip} is in a private range (RFC 1918). See https://datatracker.ietf.org/doc/html/rfc1918#section-3 for details.',
  'Your order #{order} left the warehouse at {iso} and should arrive within {n} business days.',
  'Version {version} fixed the regression introduced in {version2}; see https://github.com/example/project/releases/tag/v{version}.',
  'The trace {traceId} has {n} spans; the slowest, {spanId}, took {n2} ms.',
  'Image icon@2x.png is {n} KB; the CDN serves it from https://cdn.example.com/assets/{uuid}/icon@2x.png?w={n2}&h={n3}.',
  'Unix time {unix} is {iso}; in milliseconds {unixMs}, in nanoseconds {unixNs}.',
  'SHA-256 of the file: {sha256}. Build {build} passed {n}/{n2} checks.',
];

export class CorpusMaker {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  private int(lo: number, hi: number): number { return lo + Math.floor(this.random() * (hi - lo + 1)); }
  private hex(n: number): string { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[this.int(0, 15)]; return s; }
  private uuid(): string { const h = this.hex(32); return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`; }
  private date(): string { return `20${this.int(20, 26)}-${String(this.int(1, 12)).padStart(2, '0')}-${String(this.int(1, 28)).padStart(2, '0')}`; }
  private iso(): string { return `${this.date()}T${String(this.int(0, 23)).padStart(2, '0')}:${String(this.int(0, 59)).padStart(2, '0')}:${String(this.int(0, 59)).padStart(2, '0')}.${this.int(100, 999)}Z`; }

  fill(template: string): string {
    const unix = this.int(1_600_000_000, 1_800_000_000);
    const values: Record<string, () => string> = {
      city: () => pickWith(this.random, CITIES), date: () => this.date(), date2: () => this.date(), iso: () => this.iso(),
      version: () => `${this.int(0, 9)}.${this.int(0, 30)}.${this.int(0, 99)}`, version2: () => `${this.int(0, 9)}.${this.int(0, 30)}.${this.int(0, 99)}`,
      amount: () => `${this.int(1, 99_999)}.${this.int(10, 99)}`, amount2: () => `${this.int(1, 99_999)}.${this.int(10, 99)}`,
      rate: () => `0.${this.int(1000, 9999)}`, n: () => String(this.int(1, 500)), n2: () => String(this.int(1, 5000)), n3: () => String(this.int(0, 100)),
      big: () => String(this.int(1_000_000, 2_000_000_000)), float: () => (this.random() * 100).toFixed(this.int(1, 17)),
      float2: () => String(this.random()), port: () => String(this.int(1, 65535)), port2: () => String(this.int(1, 65535)),
      order: () => String(this.int(10_000, 99_999_999)), time: () => `${this.int(1, 12)}:${String(this.int(0, 59)).padStart(2, '0')} pm`,
      ip: () => `192.168.${this.int(0, 255)}.${this.int(1, 254)}`, sha: () => this.hex(40), sha256: () => this.hex(64),
      traceId: () => this.hex(32), spanId: () => this.hex(16), uuid: () => this.uuid(), model: () => pickWith(this.random, MODELS),
      unix: () => String(unix), unixMs: () => String(unix * 1000 + this.int(0, 999)), unixNs: () => `${unix}${String(this.int(0, 999_999_999)).padStart(9, '0')}`,
      build: () => `#${this.int(1000, 99999)}`,
    };
    return template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]());
  }

  private question(): string { return this.fill(pickWith(this.random, QUESTIONS)); }
  private answer(): string { return this.fill(pickWith(this.random, ANSWERS)); }

  /** A question or an answer of the kinds the spans hold (to fill captured payloads with clean text). */
  sentence(): string { return this.random() < 0.5 ? this.question() : this.answer(); }

  /** One span of the kind `i` picks, as its SDK sends it. */
  span(i: number): Span {
    const model = pickWith(this.random, MODELS);
    const common: Record<string, AttrValue> = {
      'gen_ai.request.model': model, 'gen_ai.response.model': model, 'gen_ai.usage.input_tokens': this.int(10, 9000),
      'gen_ai.usage.output_tokens': this.int(1, 2000), 'session.id': this.uuid(), 'user.id': `user-${this.int(1, 9999)}`,
      'http.url': `https://api.example.com/v1/chat/completions?request_id=${this.uuid()}`, 'service.version': this.fill('{version}'),
    };
    let attributes: Record<string, AttrValue>;
    let name = `chat ${model}`;
    switch (i % 5) {
      case 0: { // OpenLLMetry-style prompts and completions
        attributes = { ...common, 'gen_ai.system': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.response.id': `chatcmpl-${this.hex(24)}`,
          'gen_ai.prompt.0.role': 'system', 'gen_ai.prompt.0.content': 'You are a helpful assistant. Today is ' + this.date() + '.',
          'gen_ai.prompt.1.role': 'user', 'gen_ai.prompt.1.content': this.question(),
          'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': this.answer(), 'gen_ai.completion.0.finish_reason': 'stop' };
        break;
      }
      case 1: { // OpenInference messages with a tool call
        const args = JSON.stringify({ city: pickWith(this.random, CITIES), date: this.date(), units: 'metric', request_id: this.uuid(), limit: this.int(1, 50) });
        attributes = { ...common, 'openinference.span.kind': 'LLM', 'llm.model_name': model,
          'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': this.question(),
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': `call_${this.hex(24)}`,
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': args,
          'llm.token_count.prompt': this.int(10, 5000), 'llm.token_count.completion': this.int(1, 900),
          'llm.invocation_parameters': JSON.stringify({ temperature: Number(this.random().toFixed(2)), max_tokens: 1024, seed: this.int(1, 1e9) }) };
        break;
      }
      case 2: { // traceloop workflow / task spans with entity input and output
        name = pickWith(this.random, ['plan_trip.workflow', 'fetch_docs.task', 'rank_results.tool']);
        attributes = { ...common, 'traceloop.span.kind': 'task', 'traceloop.entity.name': name.split('.')[0], 'traceloop.entity.path': 'agent.plan',
          'traceloop.entity.input': JSON.stringify({ args: [this.question()], kwargs: { top_k: this.int(1, 20), doc_ids: [this.uuid(), this.uuid()] } }),
          'traceloop.entity.output': JSON.stringify({ answer: this.answer(), score: this.random(), created_at: this.iso() }) };
        break;
      }
      case 3: { // Vercel AI SDK
        attributes = { ...common, 'ai.operationId': 'ai.generateText', 'ai.model.id': model, 'ai.model.provider': 'openai.chat',
          'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: this.question() }] }]),
          'ai.response.text': this.answer(), 'ai.response.id': `resp_${this.hex(32)}`, 'ai.response.timestamp': this.iso(),
          'ai.settings.maxOutputTokens': 2048, 'ai.usage.promptTokens': this.int(10, 3000) };
        break;
      }
      default: { // Agenta's own keys, nested data, arrays
        name = pickWith(this.random, ['retrieve', 'generate', 'evaluate']);
        attributes = { ...common, 'ag.type.span': 'task', 'ag.data.inputs.query': this.question(), 'ag.data.inputs.filters.after': this.date(),
          'ag.data.inputs.filters.ids': [this.uuid(), this.uuid(), this.hex(16)], 'ag.data.outputs.documents.0.text': this.answer(),
          'ag.data.outputs.documents.0.url': `https://docs.example.com/guide/${this.int(1, 300)}#section-${this.int(1, 9)}`,
          'ag.data.outputs.documents.0.score': this.random(), 'ag.data.outputs.documents.1.text': this.answer(),
          'ag.data.internals.timings': [this.int(1, 900), this.int(1, 900)], 'ag.refs.application.id': this.uuid() };
      }
    }
    return makeSpan({
      name, kind: 3, attributes: new AttributeList(Object.entries(attributes)),
      events: [{ name: 'gen_ai.content.completion', timeNs: 1776363499000000000n, attributes: new AttributeList([['gen_ai.completion', this.answer()]]) }],
      links: i % 7 === 0 ? [{ traceId: this.hex(32), spanId: this.hex(16), attributes: new AttributeList([['link.reason', `retry of ${this.uuid()} at ${this.iso()}`]]) }] : undefined,
    });
  }
}
