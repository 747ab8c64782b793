// The protobuf decoder on hand-built bodies: KeyValue layouts protobuf allows besides the usual one,
// fields of ResourceSpans and ScopeSpans in any order, the attribute cache and repeated keys. Expected
// values are written by hand, or come from decoding each KeyValue alone with a fresh decoder.
import { describe, expect, it } from 'vitest';
import { ProtoDecoder } from './decode-proto.ts';
import { decodeExportRequest } from '../../test/helpers/otlp-decode.ts';
import { OtlpSpanLimitError } from './errors.ts';
import { attributeHash } from './decode-attribute-cache.ts';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';

type Bytes = number[];

function varint(n: number): Bytes {
  const out: Bytes = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

function len(field: number, payload: Bytes): Bytes {
  return [...varint((field << 3) | 2), ...varint(payload.length), ...payload];
}

function vint(field: number, raw: Bytes): Bytes {
  return [...varint(field << 3), ...raw];
}

function fixed64(field: number, bytes: Bytes): Bytes {
  return [...varint((field << 3) | 1), ...bytes];
}

function utf8(s: string): Bytes {
  return [...Buffer.from(s, 'utf8')];
}

const TEXTS = ['', 'chat', 'user', 'gpt-4o-mini', 'session-1', 'é', 'ü😀', 'x'.repeat(64), 'y'.repeat(65),
  'What is the weather in city number 7?'];
const KEYS = ['', 'a', 'ag.type.span', 'gen_ai.request.model', 'ag.data.inputs.prompt.0.content', 'k.0', 'é'];

function randomBytes(random: () => number, n: number): Bytes {
  return Array.from({ length: n }, () => Math.floor(random() * 256));
}

/** An AnyValue message body: one of every kind, sometimes empty, sometimes with a repeated oneof. */
function anyValue(random: () => number, depth: number): Bytes {
  const one = (): Bytes => {
    const kind = Math.floor(random() * (depth < 3 ? 9 : 7));
    switch (kind) {
      case 0: case 1: return len(1, utf8(pickWith(random, TEXTS)));
      case 2: return vint(2, varint(Math.floor(random() * 3)));
      case 3: return vint(3, random() < 0.5 ? varint(Math.floor(random() * 1e6)) : [...randomBytes(random, 9).map((b) => b | 0x80), 1]);
      case 4: return fixed64(4, randomBytes(random, 8));
      case 5: return len(7, randomBytes(random, Math.floor(random() * 5)));
      case 6: return vint(9, varint(5)); // unknown field
      case 7: { // array
        const n = Math.floor(random() * 4);
        const out: Bytes = [];
        for (let i = 0; i < n; i++) out.push(...len(1, anyValue(random, depth + 1)));
        return len(5, out);
      }
      default: { // kvlist
        const n = Math.floor(random() * 3);
        const out: Bytes = [];
        for (let i = 0; i < n; i++) out.push(...len(1, [...len(1, utf8(pickWith(random, KEYS))), ...len(2, anyValue(random, depth + 1))]));
        return len(6, out);
      }
    }
  };
  const fields = random() < 0.1 ? 0 : random() < 0.85 ? 1 : 2;
  const out: Bytes = [];
  for (let i = 0; i < fields; i++) out.push(...one());
  return out;
}

/** A request of one span whose attributes are the given KeyValue bodies. */
function spanWith(kvs: Bytes[]): Uint8Array {
  const attrs = kvs.flatMap((kv) => len(9, kv));
  const span = len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(2)), ...attrs]);
  return Uint8Array.from(len(1, len(2, span)));
}

const kv = (key: string, value: string, kind = 1) => [...len(1, utf8(key)), ...len(2, len(kind, utf8(value)))];

/** The attribute cache's slot of a KeyValue (decode-attribute-cache.ts: bits 1-12 of its hash). */
function kvSlot(bytes: Bytes): number {
  const b = Buffer.from(bytes);
  return (attributeHash(b, new DataView(b.buffer, b.byteOffset, b.length), 0, b.length) >>> 1) & 4095;
}

/** The key (or value) of a KeyValue in the slot of kv(key, value), differing from it in three letters. */
function sameSlotKeyValue(key: string, value: string, change: 'key' | 'value'): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const want = kvSlot(kv(key, value));
  const base = change === 'key' ? key : value;
  for (let n = 1; n < letters.length ** 3; n++) {
    const chars = [...base];
    for (let k = 0, m = n; k < 3; k++, m = Math.floor(m / letters.length)) chars[2 + k] = letters[m % letters.length];
    const text = chars.join('');
    if (text !== base && kvSlot(change === 'key' ? kv(text, value) : kv(key, text)) === want) return text;
  }
  throw new Error('no look-alike KeyValue');
}

describe('KeyValue layouts', () => {
  const key = len(1, utf8('gen_ai.request.model'));
  const value = len(2, len(1, utf8('gpt-4o-mini')));
  const unknown = vint(7, varint(3));
  const cases: Array<[string, Bytes, Array<[string, unknown]>]> = [
    ['key then value', [...key, ...value], [['gen_ai.request.model', 'gpt-4o-mini']]],
    ['value then key', [...value, ...key], [['gen_ai.request.model', 'gpt-4o-mini']]],
    ['an unknown field after', [...key, ...value, ...unknown], [['gen_ai.request.model', 'gpt-4o-mini']]],
    ['an unknown field first, the key twice', [...unknown, ...key, ...key, ...value], [['gen_ai.request.model', 'gpt-4o-mini']]],
    ['the value twice: the last wins', [...key, ...value, ...len(2, len(1, utf8('later')))], [['gen_ai.request.model', 'later']]],
    ['a oneof field twice: the last wins', [...key, ...len(2, [...len(1, utf8('a')), ...vint(3, varint(7))])], [['gen_ai.request.model', 7]]],
    ['no value: null', key, [['gen_ai.request.model', null]]],
    ['no key: the empty key', value, [['', 'gpt-4o-mini']]],
  ];
  it.each(cases)('%s', (_, body, expected) => {
    const decoder = new ProtoDecoder();
    // Three times: the KeyValue is cached from its second sighting on and must decode the same.
    for (let i = 0; i < 3; i++) expect([...decoder.decode(spanWith([body])).spans[0].attributes]).toEqual(expected);
  });
});

describe('ResourceSpans and ScopeSpans fields in any order', () => {
  const span = (id: number) => len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(id)), ...len(5, utf8('s'))]);
  const scope = len(1, len(1, utf8('scope')));
  const url = (u: string) => len(3, utf8(u));
  const decode = (scopeFields: Bytes[], resourceFields: Bytes[] = []) =>
    decodeExportRequest(Uint8Array.from(len(1, [...len(2, scopeFields.flat()), ...resourceFields.flat()]))).spans;

  it('a scope after the spans applies to all of them', () => {
    const spans = decode([span(1), scope, span(2)]);
    expect(spans.map((s) => s.scope)).toEqual([{ name: 'scope' }, { name: 'scope' }]);
  });

  it('a schema url after the spans applies to all of them; of two, the last wins', () => {
    const spans = decode([url('https://a'), scope, span(1), span(2), url('https://b')]);
    expect(spans.map((s) => s.otlp)).toEqual([{ scopeSchemaUrl: 'https://b' }, { scopeSchemaUrl: 'https://b' }]);
  });

  it('a resource schema url and resource after the scope spans apply to them', () => {
    const spans = decode([span(1)], [len(1, len(1, kv('service.name', 'svc'))), url('https://r')]);
    expect([...spans[0].resource!]).toEqual([['service.name', 'svc']]);
    expect(spans[0].otlp).toEqual({ resourceSchemaUrl: 'https://r' });
  });

  it('a span with otlp extras gets the later url added last', () => {
    const flagged = len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(1)), ...len(3, utf8('k=v'))]);
    const [one] = decode([flagged, url('https://u')]);
    expect(Object.entries(one.otlp!)).toEqual([['traceState', 'k=v'], ['scopeSchemaUrl', 'https://u']]);
  });
});

describe('attribute cache', () => {
  it('look-alike KeyValues (same size, same slot) never take each other\'s key or value', () => {
    // Size 20 (key and string value of 7 bytes): KeyValues in the slot of the first, differing from it
    // only in the key or only in the value, and one in the value kind (bytes of the same size, written
    // as base64).
    const key = sameSlotKeyValue('abXdefg', 'uvXxyzw', 'key');
    const value = sameSlotKeyValue('abXdefg', 'uvXxyzw', 'value');
    const variants: Array<[Bytes, [string, string]]> = [
      [kv('abXdefg', 'uvXxyzw'), ['abXdefg', 'uvXxyzw']],
      [kv(key, 'uvXxyzw'), [key, 'uvXxyzw']],
      [kv('abXdefg', value), ['abXdefg', value]],
      [kv('abXdefg', 'uvXxyzw', 7), ['abXdefg', Buffer.from('uvXxyzw').toString('base64')]],
    ];
    const decoder = new ProtoDecoder();
    for (let round = 0; round < 4; round++) {
      for (const [v, expected] of variants) {
        expect([...decoder.decode(spanWith([v, v, v])).spans[0].attributes]).toEqual([expected]);
      }
    }
  });

  it('repeated KeyValues of every scalar kind come back as each decodes alone', () => {
    const random = seededRandom(3003);
    const pool: Bytes[] = [];
    for (let i = 0; i < 40; i++) pool.push([...len(1, utf8(`key.${i % 7}`)), ...len(2, anyValue(random, 0))]);
    const alone = pool.map((kv) => [...decodeExportRequest(spanWith([kv])).spans[0].attributes]);
    const decoder = new ProtoDecoder();
    for (let i = 0; i < 400; i++) {
      const picked = Array.from({ length: 6 }, () => Math.floor(random() * pool.length));
      const expected = new Map<string, unknown>();
      for (const p of picked) for (const [k, v] of alone[p]) expected.set(k, v);
      expect([...decoder.decode(spanWith(picked.map((p) => pool[p]))).spans[0].attributes], `request ${i}`).toEqual([...expected]);
    }
  });
});

describe('repeated attribute keys', () => {
  const decoder = new ProtoDecoder();
  const attributesOf = (bytes: Uint8Array) => decoder.decode(bytes).spans[0].attributes;

  it('keep the first position and the last value, as Map.set would, whatever the values', () => {
    // Few keys, so most spans repeat one; `k` with a kvlist value flattens to `k.<key>`, which can meet
    // a plain `k.0` too. The expected map folds each KeyValue decoded alone into a Map with `set`.
    const random = seededRandom(3004);
    const keys = ['a', 'b', 'k', 'k.0'];
    let repeated = 0;
    for (let i = 0; i < 600; i++) {
      const kvs = Array.from({ length: 2 + Math.floor(random() * 8) }, () => {
        const value = random() < 0.5 ? len(1, utf8(pickWith(random, TEXTS))) : anyValue(random, 0);
        return [...len(1, utf8(pickWith(random, keys))), ...len(2, value)];
      });
      const expected = new Map<string, unknown>();
      let added = 0;
      for (const kv of kvs) {
        for (const [k, v] of attributesOf(spanWith([kv]))) {
          expected.set(k, v);
          added++;
        }
      }
      if (added > expected.size) repeated++;
      // The same span twice in a row: the second takes the decoder's "same keys as last time" check.
      for (let twice = 0; twice < 2; twice++) {
        expect([...attributesOf(spanWith(kvs))], `request ${i}`).toEqual([...expected]);
      }
    }
    expect(repeated).toBeGreaterThan(300);
  });
});

describe('the span limit', () => {
  /** Protobuf varint bytes of `n`. */
  function varint(n: number): number[] {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    return out;
  }

  /** One ResourceSpans holding one ScopeSpans of `n` empty Span messages (2 bytes each). */
  function emptySpans(n: number): Buffer {
    const scopeSpans = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i++) scopeSpans[i * 2] = 0x12; // field 2 (spans), length 0
    const resourceSpans = Buffer.concat([Buffer.from([0x12, ...varint(scopeSpans.length)]), scopeSpans]);
    return Buffer.concat([Buffer.from([0x0a, ...varint(resourceSpans.length)]), resourceSpans]);
  }

  it('counts the spans before decoding any: a million empty ones over the limit are refused, none built', () => {
    const decoder = new ProtoDecoder(100_000);
    expect(() => decoder.decode(emptySpans(1_000_000))).toThrow(OtlpSpanLimitError);
    expect(() => decoder.decode(emptySpans(1_000_000))).toThrow('the request holds more than max_spans_per_request (100000) spans');
  });

  it('takes exactly the limit, counted across scopes', () => {
    expect(new ProtoDecoder(3).decode(emptySpans(3)).spans).toHaveLength(3);
    const twoScopes = Buffer.concat([emptySpans(2), emptySpans(2)]);
    expect(new ProtoDecoder(4).decode(twoScopes).spans).toHaveLength(4);
    expect(() => new ProtoDecoder(3).decode(twoScopes)).toThrow(OtlpSpanLimitError);
  });
});

describe('a decoder after a request that failed part way', () => {
  it('decodes the next request as a fresh decoder does: no attribute of the failed one is left behind', () => {
    const decoder = new ProtoDecoder();
    const good = spanWith([kv('gen_ai.system', 'openai'), kv('session.id', 'session-1')]);
    // A span whose attributes are read before a field of wire type 7 fails the decode. A kvlist value
    // first makes the span's members a real list (Map semantics) on the way.
    const kvlist = [...len(1, utf8('m')), ...len(2, len(6, len(1, [...len(1, utf8('k')), ...len(2, len(1, utf8('v')))])))];
    for (const first of [kv('a', 'b'), kvlist]) {
      const attrs = [first, kv('c', 'd'), kv('e', 'f'.repeat(40))].flatMap((a) => len(9, a));
      const span = len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(2)), ...attrs, ...varint((20 << 3) | 7)]);
      expect(() => decoder.decode(Uint8Array.from(len(1, len(2, span))))).toThrow(/wire type 7/);
      expect([...decoder.decode(good).spans[0].attributes]).toEqual([...new ProtoDecoder().decode(good).spans[0].attributes]);
    }
  });
});
