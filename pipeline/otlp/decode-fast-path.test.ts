// The decoder's straight-line paths (decodeFastPaths) against its general paths on the same bytes:
// random requests whose KeyValues use every layout protobuf allows (fields out of order, repeated,
// missing, unknown, every AnyValue kind, oneof fields repeated), then the same bytes randomly broken.
// Both decodes must give identical spans, or fail with the identical error.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeExportRequest, decodeFastPaths } from './decode-proto.ts';
import { otlpProtoBody } from '../../bench/bodies.ts';
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

let canonical = 0;
let other = 0;

/** A KeyValue message body in one of the layouts an encoder may produce. */
function keyValue(random: () => number): Bytes {
  const key = len(1, utf8(pickWith(random, KEYS)));
  const value = len(2, random() < 0.6 ? len(1, utf8(pickWith(random, TEXTS))) : anyValue(random, 0));
  const unknown = vint(7, varint(3));
  const layout = Math.floor(random() * 10);
  if (layout < 5) canonical++;
  else other++;
  switch (layout) {
    case 0: case 1: case 2: case 3: case 4: return [...key, ...value];
    case 5: return [...value, ...key];
    case 6: return [...key, ...value, ...unknown];
    case 7: return [...key, ...value, ...len(2, len(1, utf8('later')))];
    case 8: return random() < 0.5 ? key : value;
    default: return [...unknown, ...key, ...key, ...value];
  }
}

function attributes(random: () => number, field: number, max: number): Bytes {
  const out: Bytes = [];
  const n = Math.floor(random() * max);
  for (let i = 0; i < n; i++) out.push(...len(field, keyValue(random)));
  return out;
}

const URLS = ['', 'https://opentelemetry.io/schemas/1.26.0', 'https://example.com/s'];

/** A request with spans whose ScopeSpans fields come in a random order: scope, spans and schema urls. */
function request(random: () => number): Uint8Array {
  const spans: Bytes[] = [];
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i++) {
    const event = len(11, [...fixed64(1, randomBytes(random, 8)), ...len(2, utf8('e')), ...attributes(random, 3, 3)]);
    const link = len(13, [...len(1, randomBytes(random, 16)), ...len(2, randomBytes(random, 8)), ...attributes(random, 4, 2)]);
    // Flags (16, fixed32) and a trace state give some spans otlp extras before any schema url.
    const flags = random() < 0.3 ? [...varint((16 << 3) | 5), 1, 1, 0, 0] : [];
    const traceState = random() < 0.2 ? len(3, utf8('k=v')) : [];
    spans.push(len(2, [
      ...len(1, randomBytes(random, 16)), ...len(2, randomBytes(random, 8)), ...traceState, ...len(5, utf8('s')),
      ...attributes(random, 9, 8), ...(random() < 0.5 ? event : []), ...(random() < 0.2 ? link : []), ...flags,
    ]));
  }
  const scope = len(1, [...len(1, utf8('scope')), ...attributes(random, 3, 2)]);
  const url = () => len(3, utf8(pickWith(random, URLS)));
  let fields: Bytes[];
  switch (Math.floor(random() * 6)) {
    case 0: case 1: fields = [scope, ...spans]; break; // no url: the usual
    case 2: fields = [scope, ...spans, url()]; break; // the url last, as encoders write it
    case 3: fields = [url(), scope, ...spans, ...(random() < 0.5 ? [url()] : [])]; break; // url before, maybe again
    case 4: fields = [...spans.slice(0, 1), scope, ...spans.slice(1), url()]; break; // scope after a span
    default: fields = [...spans.slice(0, 1), url(), ...spans.slice(1), url()]; // urls between spans
  }
  const resource = len(1, attributes(random, 1, 3));
  const resourceUrl = random() < 0.3 ? url() : [];
  return Uint8Array.from(len(1, [...resource, ...len(2, fields.flat()), ...resourceUrl]));
}

/** The decode result, or the error message, with the fast paths on or off. */
function decode(bytes: Uint8Array, fast: boolean): unknown {
  decodeFastPaths.enabled = fast;
  try {
    return decodeExportRequest(bytes);
  } catch (e) {
    return { error: String(e) };
  } finally {
    decodeFastPaths.enabled = true;
  }
}

afterEach(() => {
  decodeFastPaths.enabled = true;
});

describe('decode fast paths against the general paths', () => {
  it('random KeyValue layouts and AnyValue kinds decode identically', () => {
    const random = seededRandom(3001);
    canonical = 0;
    other = 0;
    let failures = 0;
    for (let i = 0; i < 1500; i++) {
      const bytes = request(random);
      const general = decode(bytes, false);
      if ((general as { error?: string }).error !== undefined) failures++;
      expect(decode(bytes, true), `request ${i}`).toStrictEqual(general);
    }
    // Both layouts were generated, and most requests decoded (the generator writes valid messages,
    // only deep kvlists may exceed nothing here: failures should be none).
    expect(canonical).toBeGreaterThan(1000);
    expect(other).toBeGreaterThan(1000);
    expect(failures).toBe(0);
  });

  it('randomly broken bodies give the same spans or the same error either way', () => {
    const random = seededRandom(3002);
    const sources = [otlpProtoBody(0, 5), request(random), request(random)];
    let errors = 0;
    let decoded = 0;
    for (let i = 0; i < 1500; i++) {
      const bytes = Uint8Array.from(pickWith(random, sources));
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const general = decode(bytes, false);
      if ((general as { error?: string }).error !== undefined) errors++;
      else decoded++;
      expect(decode(bytes, true), `body ${i}`).toStrictEqual(general);
    }
    expect(errors).toBeGreaterThan(100);
    expect(decoded).toBeGreaterThan(100);
  });
});

describe('attribute cache', () => {
  /** A request of one span whose attributes are the given KeyValue bodies. */
  function spanWith(kvs: Bytes[]): Uint8Array {
    const attrs = kvs.flatMap((kv) => len(9, kv));
    const span = len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(2)), ...attrs]);
    return Uint8Array.from(len(1, len(2, span)));
  }

  it('look-alike KeyValues (same size, same sampled bytes) never take each other\'s key or value', () => {
    // Size 20 (key and string value of 7 bytes): the slot samples offsets 3, 5, 10, 14 and 16-19, so
    // these differ only in bytes it does not look at (key offset 4, value offset 15), and in the value
    // kind (a string vs bytes of the same size).
    const kv = (key: string, value: string, kind = 1) => [...len(1, utf8(key)), ...len(2, len(kind, utf8(value)))];
    const variants = [kv('abXdefg', 'uvXxyzw'), kv('abYdefg', 'uvXxyzw'), kv('abXdefg', 'uvYxyzw'), kv('abXdefg', 'uvXxyzw', 7)];
    const general: unknown[] = [];
    for (let round = 0; round < 4; round++) {
      for (const v of variants) {
        const bytes = spanWith([v, v, v]);
        const expected = decode(bytes, false);
        general.push(expected);
        expect(decode(bytes, true)).toStrictEqual(expected);
      }
    }
    const first = general[0] as { spans: Array<{ attributes: Map<string, unknown> }> };
    expect([...first.spans[0].attributes]).toEqual([['abXdefg', 'uvXxyzw']]);
  });

  it('repeated KeyValues of every scalar kind come back equal once cached', () => {
    const random = seededRandom(3003);
    const pool: Bytes[] = [];
    for (let i = 0; i < 40; i++) pool.push([...len(1, utf8(`key.${i % 7}`)), ...len(2, anyValue(random, 0))]);
    for (let i = 0; i < 400; i++) {
      const bytes = spanWith(Array.from({ length: 6 }, () => pickWith(random, pool)));
      expect(decode(bytes, true), `request ${i}`).toStrictEqual(decode(bytes, false));
    }
  });
});

describe('repeated attribute keys', () => {
  /** A request of one span whose attributes are the given KeyValue bodies. */
  function spanWith(kvs: Bytes[]): Uint8Array {
    const attrs = kvs.flatMap((kv) => len(9, kv));
    const span = len(2, [...len(1, Array(16).fill(1)), ...len(2, Array(8).fill(2)), ...attrs]);
    return Uint8Array.from(len(1, len(2, span)));
  }

  const attributesOf = (bytes: Uint8Array) => decodeExportRequest(bytes).spans[0].attributes;

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
