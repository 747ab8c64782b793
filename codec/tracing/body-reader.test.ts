// The tracing body reader against JSON.parse (with the exact reviver for wide integers, parse.ts) as the
// oracle: any JSON value reads as JSON.parse gives it; a tracing body reads as JSON.parse gives it with
// each span's and event's attribute object flattened; text JSON.parse refuses, or nesting beyond the
// limit, reads as undefined.
import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { flattenObject } from '../../model/attributes/flatten.ts';
import { parseJsonBytes } from '../json/parse.ts';
import { TracingBodyReader } from './body-reader.ts';

const ATOMS = [
  '0', '-0', '7', '-12', '12.5', '1e3', '2e400', '-2e400', '9007199254740993', '1776363499123456789', '1E+20',
  '0.12345678901234567', '"x"', '"é€"', '"\\u00e9\\ud83d\\ude00"', '"quote \\" and \\\\ backslash"', '""',
  '"[[[{{{"', 'true', 'false', 'null', '"a long string that is longer than sixty-four bytes, so it is not cached at all"',
];
const KEYS = ['"a"', '"b"', '"\\u0061"', '"0"', '"42"', '"__proto__"', '"é"', '"a.b"'];
const SPACE = ['', ' ', '\n', '\t ', '\r\n'];

function json(random: () => number, level: number): string {
  const r = random();
  const s = () => pickWith(random, SPACE);
  if (level >= 4 || r < 0.4) return pickWith(random, ATOMS);
  const n = Math.floor(random() * 4);
  const items = Array.from({ length: n }, () => json(random, level + 1));
  if (r < 0.6) return `[${s()}${items.join(`${s()},${s()}`)}${s()}]`;
  return `{${s()}${items.map((v) => `${pickWith(random, KEYS)}${s()}:${s()}${v}`).join(',')}${s()}}`;
}

const INVALID = [
  '', ' ', '{', '[1,]', '{"a":1,}', '01', '1.', '-', '+1', '.5', '1e', '"\\x"', '"\u0001"', '"abc', 'tru', 'nul',
  '{"a" 1}', '{a:1}', '[1 2]', '{"spans": []} x', '\ufeff{}', 'NaN', 'Infinity', "'a'", '[', ']', '{"a":1}}',
];

function expected(text: string): unknown {
  const parsed = parseJsonBytes(Buffer.from(text), 1000);
  if (!parsed.ok) throw new Error(`oracle refused ${text}`);
  return parsed.value;
}

describe('TracingBodyReader, any JSON value', () => {
  const reader = new TracingBodyReader(64);

  it('reads 3,000 random documents as JSON.parse does (duplicates, digit keys, __proto__, escapes, wide numbers)', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 3000; i++) {
      const text = json(random, 0);
      const value = reader.read(Buffer.from(text), false);
      expect(value, text).toEqual(expected(text));
      if (value !== null && typeof value === 'object') expect(Object.keys(value), text).toEqual(Object.keys(expected(text) as object));
    }
  });

  it('refuses what JSON.parse refuses', () => {
    for (const text of INVALID) {
      expect(reader.read(Buffer.from(text), false), JSON.stringify(text)).toBeUndefined();
      expect(reader.read(Buffer.from(text), true), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(reader.read(Buffer.from([0x22, 0xff, 0x22]), false)).toBeUndefined();
  });

  it('refuses nesting beyond its limit, also inside members it skips', () => {
    const limited = new TracingBodyReader(3);
    expect(limited.read(Buffer.from('[[[1]]]'), false)).toEqual([[[1]]]);
    expect(limited.read(Buffer.from('[[[[1]]]]'), false)).toBeUndefined();
    const four = new TracingBodyReader(4);
    expect(four.read(Buffer.from('{"spans":[{"x":[1]}]}'), true)).toBeDefined();
    expect(four.read(Buffer.from('{"spans":[{"x":[[1]]}]}'), true)).toBeUndefined();
    expect(four.read(Buffer.from('{"spans":[{"attributes":{"a":1}}]}'), true)).toBeDefined();
    expect(four.read(Buffer.from('{"spans":[{"attributes":{"a":[1]}}]}'), true)).toBeUndefined();
    expect(four.read(Buffer.from('{"spans":[{"events":[{"attributes":{}}]}]}'), true)).toBeUndefined();
  });
});

const SPAN_MEMBERS = [
  'trace_id', 'span_id', 'parent_id', 'span_name', 'span_kind', 'start_time', 'end_time', 'status_code',
  'status_message', 'attributes', 'events', 'session_id', 'user_id', 'span_type', 'trace_type', 'links',
  'references', 'resource', 'scope', 'otlp', 'spans',
];

/** What the reader should give for a span JSON.parse read: the known members, attributes flattened. */
function spanView(span: unknown): unknown {
  if (span === null || typeof span !== 'object' || Array.isArray(span)) return span;
  const o = span as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of SPAN_MEMBERS) out[name] = o[name];
  out.attributes = attributesView(o.attributes);
  if (Array.isArray(o.events)) out.events = o.events.map(eventView);
  if (isObject(o.spans)) out.spans = childrenView(o.spans);
  return out;
}

function eventView(event: unknown): unknown {
  if (!isObject(event)) return event;
  return { name: event.name, timestamp: event.timestamp, attributes: attributesView(event.attributes), otlp: event.otlp };
}

function childrenView(children: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(children)) {
    const v = children[key];
    out[key] = Array.isArray(v) ? v.map(spanView) : spanView(v);
  }
  return out;
}

function attributesView(v: unknown): unknown {
  return isObject(v) ? flattenObject(v) : v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bodyView(body: unknown): unknown {
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if (Array.isArray(body.spans)) out.spans = body.spans.map(spanView);
  if (isObject(body.traces)) {
    const traces: Record<string, unknown> = {};
    for (const key of Object.keys(body.traces)) {
      const entry = body.traces[key];
      traces[key] = isObject(entry) && isObject(entry.spans) ? { ...entry, spans: childrenView(entry.spans) } : entry;
    }
    out.traces = traces;
  }
  return out;
}

const ATTRIBUTE_VALUES = ['"v"', '1', '-0', '2.5', 'true', 'null', '1776363499123456789', '2e400', '["a",1]', '{"x":{"y":1}}', '[{"a":1}]', '"é"'];
const ATTRIBUTE_KEYS = ['"k"', '"ag.data.inputs"', '"ag.data.inputs.a"', '"n"', '"0"', '"7"', '"k\\u0032"', '"k2"'];

function attributes(random: () => number): string {
  const n = Math.floor(random() * 5);
  const members = Array.from({ length: n }, () => {
    const value = random() < 0.7 ? pickWith(random, ATTRIBUTE_VALUES.slice(0, 8)) : pickWith(random, ATTRIBUTE_VALUES);
    return `${pickWith(random, ATTRIBUTE_KEYS)}:${value}`;
  });
  return `{${members.join(',')}}`;
}

function spanText(random: () => number, level: number): string {
  const members: string[] = [];
  const add = (name: string, value: string) => members.push(`"${name}":${value}`);
  if (random() < 0.9) add('trace_id', pickWith(random, ['"4bf92f3577b34da6a3ce929d0e0e4736"', '"x"', '1', 'null']));
  if (random() < 0.9) add(pickWith(random, ['span_id', 'span\\u005fid']), `"00f067aa0ba902b${Math.floor(random() * 10)}"`);
  if (random() < 0.8) add('start_time', pickWith(random, ['"1776363498000000000"', '1776363498', '"2026-04-16T18:18:18Z"']));
  if (random() < 0.8) add('end_time', '1776363499');
  if (random() < 0.8) add('attributes', random() < 0.9 ? attributes(random) : pickWith(random, ['"no"', '[1]', 'null']));
  if (random() < 0.5) {
    const events = Array.from({ length: Math.floor(random() * 3) }, () =>
      random() < 0.9 ? `{"name":"e","timestamp":1776363498,"attributes":${attributes(random)},"extra":[1,{"a":2}]}` : '7');
    add('events', `[${events.join(',')}]`);
  }
  if (random() < 0.3) add('links', '[{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","attributes":{"w":{"x":1}}}]');
  if (random() < 0.3) add('unknown', pickWith(random, ['{"a":[1,2,{"b":"c"}]}', '"s"', '12345678901234567890']));
  if (random() < 0.2) add('span_kind', '"SPAN_KIND_CLIENT"');
  if (level < 2 && random() < 0.4) {
    const children = Array.from({ length: Math.floor(random() * 3) + 1 }, (_, i) =>
      `"${pickWith(random, ['c', 'd', '3', 'c'])}${i % 2 ? '' : ''}":${random() < 0.3 ? `[${spanText(random, level + 1)}]` : spanText(random, level + 1)}`);
    add('spans', `{${children.join(',')}}`);
  }
  // A repeated member: the later one counts.
  if (random() < 0.1) add('end_time', '1776363500');
  return `{${members.join(', ')}}`;
}

function bodyText(random: () => number): string {
  const r = random();
  const spans = Array.from({ length: Math.floor(random() * 4) }, () => spanText(random, 0));
  if (r < 0.5) return `{"spans":[${spans.join(',')}]}`;
  if (r < 0.9) {
    const traces = Array.from({ length: Math.floor(random() * 3) }, (_, i) =>
      `"${pickWith(random, ['4bf92f3577b34da6a3ce929d0e0e4736', '1', 't'])}${i}":${random() < 0.9 ? `{"spans":{${spans.map((s, j) => `"n${j % 2}":${s}`).join(',')}}}` : 'null'}`);
    return `{"traces":{${traces.join(',')}}}`;
  }
  return pickWith(random, ['{"spans":7}', '{"traces":[1]}', '{"spans":[],"traces":{}}', '[1]', '"s"', '{"other":{"spans":[{"attributes":{"a":{"b":1}}}]}}']);
}

describe('TracingBodyReader, tracing bodies', () => {
  it('reads 2,000 random bodies (flat and tree) as JSON.parse does, each span\'s and event\'s attributes flattened', () => {
    const reader = new TracingBodyReader(64);
    const random = seededRandom(11);
    for (let i = 0; i < 2000; i++) {
      const text = bodyText(random);
      expect(reader.read(Buffer.from(text), true), text).toEqual(bodyView(expected(text)));
    }
  });

  it('keeps attribute keys in the order JSON.parse gives them, a repeated key\'s last value at its first position', () => {
    const reader = new TracingBodyReader(64);
    for (const attrs of ['{"b":1,"a":2,"b":3}', '{"b":1,"7":2,"0":3}', '{"a":{"x":1},"a":{"y":2}}', '{"a.b":1,"a":{"b":2}}']) {
      const text = `{"spans":[{"attributes":${attrs}}]}`;
      const read = reader.read(Buffer.from(text), true) as { spans: Array<{ attributes: Map<string, unknown> }> };
      const oracle = flattenObject(JSON.parse(attrs));
      expect([...read.spans[0].attributes.keys()], attrs).toEqual([...oracle.keys()]);
      expect([...read.spans[0].attributes.values()], attrs).toEqual([...oracle.values()]);
    }
  });
});

describe('TracingBodyReader, max values', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);

  it('refuses a body that would build more objects and arrays than allowed, as parseJsonBytes then says', () => {
    const reader = new TracingBodyReader(64, 3);
    expect(reader.read(bytes('{"a":[{}],"b":{}}'), false)).toBeUndefined(); // 4 containers
    expect(parseJsonBytes(bytes('{"a":[{}],"b":{}}'), 64, 3)).toMatchObject({ ok: false, problem: 'too_many_values' });
    expect(reader.read(bytes('{"a":[1],"b":{}}'), false)).toEqual({ a: [1], b: {} }); // 3
  });

  it('counts what it builds: an unknown member of a span is skipped, not built, so not counted', () => {
    const reader = new TracingBodyReader(64, 3);
    const span = '{"trace_id":"t","extra":[{},{},{},{}]}';
    expect(reader.read(bytes(`{"spans":[${span}]}`), true)).toBeDefined();
  });
});
