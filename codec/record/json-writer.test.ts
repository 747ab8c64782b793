import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { AttributeList } from '../../model/attributes/list.ts';
import { ascii, PiecePositions } from '../bytes/piece.ts';
import { JsonWriter } from './json-writer.ts';

// Differential tests of the writer's fast paths against JSON.stringify, the reference they must match
// byte for byte: strings tested and stored four characters at a time, pre-encoded pieces stored as words,
// and attribute members whose comma is part of the cached key.

/** One character of every class the string writer treats differently. */
const CLASSES = [
  () => 'a', () => '~', () => ' ', () => '\u007f', () => '"', () => '\\', () => '\u0000', () => '\n', () => '\u001f',
  () => '\u0080', () => 'é', () => '€', () => '\ufffd', () => '😀', () => '\ud800', () => '\udfff', () => '!', () => '#',
  () => '[', () => ']', () => '\u0021', () => '\u005b', () => '\u005d',
];

function randomText(random: () => number, length: number): string {
  // Mostly plain characters, so that an odd one sits at every position of a four-character word.
  let text = '';
  for (let i = 0; i < length; i++) {
    text += random() < 0.9
      ? String.fromCharCode(0x20 + Math.floor(random() * 0x5f))
      : CLASSES[Math.floor(random() * CLASSES.length)]();
  }
  return text;
}

function written(write: (w: JsonWriter) => void, capacity = 64): string {
  const w = new JsonWriter(capacity);
  write(w);
  return w.bytes().toString('utf8');
}

describe('JsonWriter', () => {
  it('writes any string as JSON.stringify does (every escape class at every position, lengths 0-80)', () => {
    const random = seededRandom(3201);
    for (let i = 0; i < 6000; i++) {
      const text = randomText(random, i % 81);
      expect(written((w) => w.string(text)), JSON.stringify(text)).toBe(JSON.stringify(text));
    }
    for (const c of CLASSES) {
      for (let at = 0; at < 9; at++) {
        const text = 'abcdefgh'.slice(0, at) + c() + 'ijklmnop'.slice(at);
        expect(written((w) => w.string(text))).toBe(JSON.stringify(text));
      }
    }
  });

  it('writes long strings as JSON.stringify does: one odd character anywhere, or none', () => {
    const random = seededRandom(3203);
    // 0xef-led characters next to U+FFFD (EF BF BD): only U+FFFD itself may stand for a lone surrogate.
    const odd = [...CLASSES, () => '\uff01', () => '\uff0c', () => '\ufffc', () => '\uffbd', () => '\uffff', () => 'ü', () => '日'];
    for (let i = 0; i < 3000; i++) {
      const length = 65 + Math.floor(random() * 400);
      let text = '';
      for (let j = 0; j < length; j++) text += String.fromCharCode(0x20 + Math.floor(random() * 0x5f)).replace(/["\\]/, 'x');
      if (i % 4 !== 0) {
        const at = Math.floor(random() * length);
        text = text.slice(0, at) + odd[Math.floor(random() * odd.length)]() + text.slice(at + 1);
      }
      expect(written((w) => w.string(text)), JSON.stringify(text)).toBe(JSON.stringify(text));
    }
  });

  it('writes long texts with many escapes as JSON.stringify does: every kind, adjacent, at the ends, runs short and long, any UTF-8', () => {
    const random = seededRandom(3206);
    // Controls of both escape forms, quotes and backslashes (found by separate searches and merged),
    // among ASCII and multi-byte characters; runs between escapes from none to over 256 bytes (the
    // native move).
    const escapes = ['\n', '\t', '\r', '\b', '\f', '\u0000', '\u0001', '\u001b', '\u001f', '"', '\\'];
    const plain = ['a', ' ', '~', '\u007f', 'é', '€', '日', '😀', '\ufffd', '\u2028'];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const parts = 1 + Math.floor(random() * 12);
      for (let p = 0; p < parts; p++) {
        const run = [0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 255, 256, 300][Math.floor(random() * 13)];
        for (let j = 0; j < run; j++) text += random() < 0.9 ? 'x' : plain[Math.floor(random() * plain.length)];
        const burst = 1 + Math.floor(random() * 3);
        for (let b = 0; b < burst; b++) text += escapes[Math.floor(random() * escapes.length)];
      }
      if (random() < 0.5) text = text.padEnd(65, 'y');
      // Written after other text, from a small buffer: the output grows while escapes are opened.
      const out = written((w) => {
        w.raw('[');
        w.string(text);
        w.raw(']');
      }, 8);
      expect(out === '[' + JSON.stringify(text) + ']', JSON.stringify(text)).toBe(true);
    }
  });

  it('finds the quotes and backslashes of a non-ASCII text in its own bytes only, whatever the buffer holds after them', () => {
    // Whatever searches them (a latin1 copy of the text's bytes; a search of the buffer itself stopped by
    // a sentinel was measured, docs/performance.md issue 26) must see the text's bytes only: stale bytes
    // after them (quotes, backslashes, or none of them up to the buffer's end) are neither found nor stop it.
    const texts = [
      'é'.repeat(80), '"é' + 'x'.repeat(70) + '\\', 'naïve “quoted” café\n'.repeat(5) + '"', '\\'.repeat(3) + '日本'.repeat(40) + '"'.repeat(3),
      'x'.repeat(70) + 'é', '😀"\\'.repeat(30),
    ];
    for (const text of texts) {
      const size = Buffer.byteLength(JSON.stringify(text));
      for (const stale of [0x22, 0x5c, 0x00, 0x41]) {
        for (const room of [0, 1, 7, 4096]) {
          const into = Buffer.alloc(1 + size + room, stale);
          const w = new JsonWriter(into.length, into);
          w.raw('[');
          w.string(text);
          expect(w.bytes().toString('utf8'), `${JSON.stringify(text)} stale ${stale} room ${room}`).toBe('[' + JSON.stringify(text));
        }
      }
    }
  });

  it('writes texts of 64 KiB and more as JSON.stringify does', () => {
    const HUGE = 64 * 1024;
    const random = seededRandom(3205);
    for (let i = 0; i < 6; i++) {
      // Plain, then one odd character of each kind near the start, the middle or the end.
      let text = randomText(random, HUGE + 1).replace(/[^ -~]|["\\]/g, 'x');
      if (i > 0) {
        const at = [5, HUGE >> 1, HUGE - 3][i % 3];
        text = text.slice(0, at) + ['\n', '"', '\ud800', '\uff0c', 'ü'][i - 1] + text.slice(at + 1);
      }
      expect(written((w) => w.string(text)) === JSON.stringify(text), `case ${i}`).toBe(true);
    }
  });

  it('reserves the bytes an escaped text takes, not six per character: a buffer that fits it is not grown', () => {
    for (const text of ['x'.repeat(1000), 'line\n'.repeat(200), '日本'.repeat(300)]) {
      const size = Buffer.byteLength(JSON.stringify(text));
      const into = Buffer.alloc(size);
      const w = new JsonWriter(size, into);
      w.string(text);
      expect(w.buf).toBe(into);
      expect(w.bytes().toString('utf8')).toBe(JSON.stringify(text));
    }
  });

  it('copies a long string written lately from its first copy: repeats, equal lengths, escapes, growth, reset', () => {
    const random = seededRandom(3204);
    // Texts of a few equal lengths (so equal-length different texts meet), some needing escapes.
    const pool = Array.from({ length: 40 }, (_, i) => {
      const base = `text ${String(i).padStart(2, '0')} ` + 'x'.repeat(80 + (i % 4) * 10);
      return i % 7 === 0 ? base.slice(0, -1) + '"' : base;
    });
    const w = new JsonWriter(16);
    for (let round = 0; round < 2; round++) {
      // The second round first overwrites what the first wrote: a stale copy would show.
      const picked = [...(round === 1 ? ['z'.repeat(50_000)] : []),
        ...Array.from({ length: 300 }, () => pool[Math.floor(random() * (round === 0 ? 40 : 20))])];
      w.reset();
      for (const t of picked) {
        w.string(t);
        w.byte(0x2c);
      }
      expect(w.bytes().toString('utf8')).toBe(picked.map((t) => JSON.stringify(t) + ',').join(''));
    }
  });

  it('sameString copies the text of a field only when it is the very text written last in that slot', () => {
    const random = seededRandom(3205);
    // Repeats of one instance, equal texts as other strings, texts of equal length that differ, empty
    // and long texts, escapes; two slots interleaved, so a copy from the wrong slot would show.
    const id = (n: number) => n.toString(16).padStart(32, '0');
    // Copies of 256 bytes and more take the native path (copyBack): 'w' and 'v' texts.
    const pool = [id(1), id(2), '', 'chat', 'tool', 'a"b', 'ü', 'y'.repeat(90), 'y'.repeat(89) + 'z', 'w'.repeat(300), 'v'.repeat(299) + '"'];
    const w = new JsonWriter(16);
    for (let round = 0; round < 2; round++) {
      const picked: Array<[number, string]> = [];
      for (let i = 0; i < 400; i++) {
        const text = random() < 0.3 ? [...pool[Math.floor(random() * pool.length)]].join('') : pool[Math.floor(random() * pool.length)];
        picked.push([random() < 0.5 ? 0 : 1, text]);
      }
      // The second round starts after a reset and first overwrites what the first round wrote: a copy
      // from a position of before the reset would show.
      const cover = round === 1 ? 'z'.repeat(20_000) : '';
      w.reset();
      w.string(cover);
      for (const [slot, text] of picked) {
        w.sameString(slot, text);
        w.byte(0x2c);
      }
      expect(w.bytes().toString('utf8')).toBe(JSON.stringify(cover) + picked.map(([, t]) => JSON.stringify(t) + ',').join(''));
    }
  });

  it('writes strings after other text, into a buffer that has to grow, as JSON.stringify does', () => {
    const random = seededRandom(3202);
    const texts = Array.from({ length: 400 }, (_, i) => randomText(random, i % 70));
    const expected = texts.map((t) => JSON.stringify(t)).join('');
    expect(written((w) => texts.forEach((t) => w.string(t)), 16)).toBe(expected);
  });

  it('copies pieces of every length exactly, with nothing of the word padding left behind', () => {
    for (let n = 0; n < 40; n++) {
      const text = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn'.slice(0, n);
      expect(written((w) => { w.copy(ascii(text)); w.byte(0x2e); w.copy(ascii(text)); }, 8)).toBe(text + '.' + text);
    }
  });

  it('writes attribute maps as JSON.stringify writes the same object (cached keys, first member, empty)', () => {
    const random = seededRandom(3203);
    for (let i = 0; i < 500; i++) {
      const members: [string, string | number | boolean | null][] = [];
      for (let m = i % 6; m > 0; m--) {
        // Keys from a small set so that most are cached by now, some new each time.
        const key = random() < 0.7 ? `key.${Math.floor(random() * 8)}` : randomText(random, Math.floor(random() * 20));
        const r = random();
        members.push([key, r < 0.4 ? randomText(random, Math.floor(random() * 30)) : r < 0.7 ? Math.floor(random() * 1e6) : r < 0.9 ? r < 0.8 : null]);
      }
      const list = new AttributeList(members);
      // Built member by member: an object would move integer-like keys to the front.
      const reference = '{' + [...list].map(([k, v]) => JSON.stringify(k) + ':' + JSON.stringify(v)).join(',') + '}';
      expect(written((w) => w.attributes(list))).toBe(reference);
    }
  });

  it('finds keys by position for one kind of map and still writes each map as it is: keys that move, change, repeat as other strings or are too long to cache', () => {
    const random = seededRandom(4409);
    const seen = new PiecePositions();
    const long = 'k'.repeat(200);
    const pool = ['span.type', 'model', 'tokens', 'role', long, 'x'];
    for (let i = 0; i < 2000; i++) {
      const keys: string[] = [];
      for (let m = 0; m < 1 + (i % 7); m++) {
        // Mostly the pool in order (the same key at the same position), sometimes another pool key, a
        // new text, or a pool key as a separate string object.
        const r = random();
        const key = r < 0.6 ? pool[m % pool.length] : r < 0.8 ? pool[Math.floor(random() * pool.length)]
          : r < 0.9 ? randomText(random, 1 + Math.floor(random() * 12)) : [...pool[m % pool.length]].join('');
        if (!keys.includes(key)) keys.push(key);
      }
      const values = keys.map((_, j) => (j % 2 ? j : `v${i % 3}`));
      const list = new AttributeList();
      keys.forEach((k, j) => list.append(k, values[j]));
      const set = new AttributeList(keys.map((k, j) => [k, values[j]]));
      const reference = '{' + keys.map((k, j) => JSON.stringify(k) + ':' + JSON.stringify(values[j])).join(',') + '}';
      expect(written((w) => w.attributes(i % 2 ? list : set, seen))).toBe(reference);
    }
  });

  it('writes numbers as JavaScript prints them (every digit count of the integer path, and around it)', () => {
    const values = [0, -0, 1, -1, 0.5, 1e21, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53, 1.5e-7];
    for (let p = 1; p <= 1e10; p *= 10) values.push(p - 1, p, p + 1);
    const random = seededRandom(3204);
    for (let i = 0; i < 2000; i++) values.push(Math.floor(random() * 2 ** Math.floor(random() * 33)));
    for (const v of values) expect(written((w) => w.number(v)), String(v)).toBe(JSON.stringify(v));
  });
});

