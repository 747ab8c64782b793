import { mkdir, mkdtemp, open, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { encodeSpanJson } from '../../codec/record/index.ts';
import { jsonLines } from '../../test/helpers/json-lines.ts';
import { sampleSpan, sampleSpans } from '../../test/record/fixtures.ts';
import { backupPath, listBackups } from './backups.ts';
import type { FileConfig } from './config.ts';
import { factory } from './factory.ts';
import { FileExporter, type FileExporterOptions } from './file-exporter.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracehop-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function exporter(path: string, options: Partial<FileExporterOptions> = {}): FileExporter {
  return new FileExporter({
    path, attributesShape: 'flat', maxBytes: 0, maxBackups: 0, logger: silentLogger, ...options,
  });
}

const linesOf = (text: string) => text.split('\n').slice(0, -1);
const lineBytes = (i: number) => Buffer.byteLength(encodeSpanJson(sampleSpan(i))) + 1;

describe('file exporter: config', () => {
  it('fills the defaults of span-record.md and needs a path', () => {
    const validate = validator(factory.schema);
    const config: Record<string, unknown> = { path: './data/spans.jsonl' };
    expect(validate(config)).toBe(true);
    expect(config).toMatchObject({
      path: './data/spans.jsonl', attributes_shape: 'flat', flush_interval: 1000,
      rotation: { max_megabytes: 100, max_backups: 100 },
      timeout: 10_000, retry: { initial_interval: 1000, max_interval: 30_000, multiplier: 1.5 },
    });
    expect(validate({})).toBe(false);
    expect(validate({ path: 'x', attributes_shape: 'deep' })).toBe(false);
    expect(validate({ path: 'x', rotation: { max_files: 1 } })).toBe(false);
  });

  it('the factory builds a working exporter from a loaded config', async () => {
    const path = join(dir, 'spans.jsonl');
    const config = { path, attributes_shape: 'nested', flush_interval: '0' } as unknown as FileConfig;
    validator(factory.schema)(config);
    const made = factory.create(config, { id: 'file', logger: silentLogger });
    await made.start();
    await made.export([sampleSpan(0)]);
    await made.shutdown();
    expect(await readFile(path, 'utf8')).toBe(encodeSpanJson(sampleSpan(0), { attributesShape: 'nested' }) + '\n');
    expect(factory).toMatchObject({ type: 'file', kind: 'exporter' });
  });
});

describe('file exporter: writing', () => {
  it('creates missing directories and writes one JSON record per line once export resolves', async () => {
    const path = join(dir, 'a', 'b', 'spans.jsonl');
    const e = exporter(path);
    await e.start();
    const spans = sampleSpans(3);
    await e.export(spans);
    expect(await readFile(path, 'utf8')).toBe(jsonLines(spans));
    await e.shutdown();
  });

  it('appends across restarts: a new exporter on the same path keeps the existing lines', async () => {
    const path = join(dir, 'spans.jsonl');
    const first = exporter(path);
    await first.start();
    await first.export(sampleSpans(2, 0));
    await first.shutdown();
    const second = exporter(path);
    await second.start();
    await second.export(sampleSpans(1, 2));
    await second.shutdown();
    expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(3)));
  });

  it('cuts a torn last line left by a crash, then appends after the last whole line', async () => {
    const path = join(dir, 'spans.jsonl');
    const whole = jsonLines(sampleSpans(2));
    await writeFile(path, whole + encodeSpanJson(sampleSpan(2)).slice(0, 100));
    const e = exporter(path);
    await e.start();
    expect(await readFile(path, 'utf8')).toBe(whole);
    await e.export([sampleSpan(2)]);
    await e.shutdown();
    expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(3)));
  });

  it('cuts a torn line longer than its read-back chunk, and a file that is only a torn line', async () => {
    const long = join(dir, 'long.jsonl');
    await writeFile(long, 'a\n' + 'x'.repeat(200_000));
    const only = join(dir, 'only.jsonl');
    await writeFile(only, '{"trace_id":"4bf9');
    for (const path of [long, only]) {
      const e = exporter(path);
      await e.start();
      await e.shutdown();
    }
    expect(await readFile(long, 'utf8')).toBe('a\n');
    expect((await stat(only)).size).toBe(0);
  });

  it('refuses to start with a StartupError naming the path when it cannot write there', async () => {
    await writeFile(join(dir, 'plain-file'), 'x');
    const underAFile = join(dir, 'plain-file', 'spans.jsonl');
    await expect(exporter(underAFile).start()).rejects.toThrow(StartupError);
    await expect(exporter(underAFile).start()).rejects.toThrow(underAFile);
    await mkdir(join(dir, 'a-directory'));
    await expect(exporter(join(dir, 'a-directory')).start()).rejects.toThrow(join(dir, 'a-directory'));
  });

  it('rejects exports after shutdown with a retryable error (the stream keeps the spans)', async () => {
    const e = exporter(join(dir, 'spans.jsonl'));
    await e.start();
    await e.shutdown();
    await expect(e.export([sampleSpan(0)])).rejects.toThrow(RetryableError);
  });

  it('issues every write(2) on line boundaries, rotation splits included', async () => {
    const path = join(dir, 'spans.jsonl');
    const probe = await open(join(dir, 'probe'), 'w');
    // Every FileHandle shares this prototype: wrapping its write() records each write(2) the exporter makes.
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => unknown };
    await probe.close();
    const writes: string[] = [];
    const realWrite = proto.write;
    proto.write = function (this: unknown, ...args: unknown[]) {
      const [buffer, offset, length] = args as [Buffer, number, number];
      writes.push(buffer.toString('utf8', offset, offset + length));
      return realWrite.apply(this, args);
    };
    try {
      const e = exporter(path, { maxBytes: lineBytes(0) * 3 + 10 });
      await e.start();
      for (let b = 0; b < 4; b++) await e.export(sampleSpans(b + 1, 0));
      await e.shutdown();
    } finally {
      proto.write = realWrite;
    }
    expect(writes.length).toBeGreaterThan(4); // the 3- and 4-span batches were split by rotation
    for (const text of writes) {
      expect(text.endsWith('\n')).toBe(true);
      for (const line of linesOf(text)) expect(() => JSON.parse(line)).not.toThrow();
    }
  });

  it('never shows a reader polling the file half a line while batches are being written', async () => {
    // The kernel may expose one write(2) that spans pages to a concurrent reader page by page (ext4 does),
    // so lines are made exactly 1024 bytes: every page boundary is then a line boundary, and a half line
    // could only come from a write that did not end on a line boundary, which is what this test catches.
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path);
    await e.start();
    let writing = true;
    const seen: string[] = [];
    const reader = (async () => {
      while (writing) seen.push(await readFile(path, 'utf8'));
    })();
    try {
      for (let b = 0; b < 60; b++) await e.export([0, 1, 2].map((k) => spanOf1KiB(b * 3 + k)));
    } finally {
      writing = false;
      await reader;
    }
    await e.shutdown();
    const nonEmpty = seen.filter((text) => text.length > 0);
    expect(nonEmpty.length).toBeGreaterThan(0);
    for (const text of nonEmpty) {
      expect(text.endsWith('\n')).toBe(true);
      for (const line of linesOf(text)) expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(linesOf(await readFile(path, 'utf8')).length).toBe(180);
  });
});

/** A span whose JSON line (newline included) is exactly 1024 bytes, the name padded to fit. */
function spanOf1KiB(i: number) {
  const span = { ...sampleSpan(0), spanId: (0x1000000000000000n + BigInt(i)).toString(16), name: '' };
  span.name = 'x'.repeat(1023 - Buffer.byteLength(encodeSpanJson(span)));
  return span;
}

describe('file exporter: when lines are written', () => {
  it('each batch at once: export resolves when its lines are in the file, whatever flush_interval says', async () => {
    // The Collector's default interval (1s) used to hold a batch under 1 MiB for the whole interval, which
    // capped a pipeline of small batches at one batch per second.
    const path = join(dir, 'spans.jsonl');
    const e = factory.create(
      { path, attributes_shape: 'flat', flush_interval: 3_600_000, rotation: { max_megabytes: 0, max_backups: 0 }, timeout: 5000 } as FileConfig,
      { id: 'file', logger: silentLogger },
    );
    await e.start();
    for (let i = 0; i < 50; i++) {
      await e.export(sampleSpans(2, 2 * i));
      expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(2 * i + 2)));
    }
    await e.shutdown();
  });

  it('batches handed over while a write is in flight are all written after it, in order', async () => {
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path);
    await e.start();
    const calls = [e.export(sampleSpans(2, 0)), e.export(sampleSpans(2, 2)), e.export(sampleSpans(2, 4))];
    await Promise.all(calls);
    expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(6)));
    await e.shutdown();
  });

  it('batches written into the buffer of an earlier write leave every earlier line intact', async () => {
    // The exporter encodes a batch into the buffer of the last write once that write is over; sizes
    // vary so that a reused buffer holds longer old text, and some batches go in flight together.
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path);
    await e.start();
    // Each write is held until the test lets it go, so batches handed over meanwhile are encoded while
    // an earlier batch's bytes still wait to be written: they must not land in that batch's buffer.
    const file = (e as unknown as { file: { append(data: Buffer): Promise<void> } }).file;
    const append = file.append.bind(file);
    let letGo: () => void = () => {};
    let taken: () => void = () => {};
    let held = false;
    file.append = async (data) => {
      if (held) {
        held = false;
        await new Promise<void>((resolve) => {
          letGo = resolve;
          taken();
        });
      }
      return append(data);
    };
    const sizes = [40, 1, 25, 3, 60, 2, 2, 30];
    let from = 0;
    for (let round = 0; round < 3; round++) {
      for (const size of sizes) {
        await e.export(sampleSpans(size, from));
        from += size;
      }
      held = true;
      const writeTaken = new Promise<void>((resolve) => { taken = resolve; });
      const first = e.export(sampleSpans(40, from));
      await writeTaken;
      const later = [e.export(sampleSpans(3, from + 40)), e.export(sampleSpans(1, from + 43))];
      from += 44;
      letGo();
      await Promise.all([first, ...later]);
    }
    expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(from)));
    await e.shutdown();
  });

  it('shutdown waits for the write in flight and resolves the waiting exports', async () => {
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path);
    await e.start();
    const pending = e.export(sampleSpans(3));
    await e.shutdown();
    await pending;
    expect(await readFile(path, 'utf8')).toBe(jsonLines(sampleSpans(3)));
  });
});

describe('file exporter: rotation', () => {
  it('names backups <name>-<UTC YYYY-MM-DDThh-mm-ss.mmm><ext> in the same directory', () => {
    const at = Date.parse('2026-04-16T18:18:18.123Z');
    expect(backupPath('/d/spans.jsonl', at)).toBe('/d/spans-2026-04-16T18-18-18.123.jsonl');
    expect(backupPath('/d/spans', at)).toBe('/d/spans-2026-04-16T18-18-18.123');
    expect(backupPath('/d/a.b.log', Date.parse('2026-01-02T03:04:05.006Z'))).toBe('/d/a.b-2026-01-02T03-04-05.006.log');
  });

  it('rotates before a write would pass the limit; no file exceeds it and no line is lost or reordered', async () => {
    const path = join(dir, 'spans.jsonl');
    const maxBytes = lineBytes(0) * 5; // lines 0..9 share one length
    const e = exporter(path, { maxBytes });
    await e.start();
    const before = Date.now();
    for (let b = 0; b < 5; b++) await e.export(sampleSpans(2, b * 2)); // 10 lines, 2 per batch
    await e.shutdown();
    const after = Date.now();
    const backups = await listBackups(path);
    // 2+2 fit (4 lines), the third batch would pass 5: rotate; likewise for the fifth.
    expect(backups.length).toBe(2);
    const all: string[] = [];
    for (const file of [...backups, path]) {
      const text = await readFile(file, 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBytes);
      all.push(...linesOf(text));
    }
    expect(all).toEqual(linesOf(jsonLines(sampleSpans(10))));
    for (const file of backups) {
      const stamp = /spans-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3})\.jsonl$/.exec(file)!;
      const at = Date.parse(`${stamp[1]}:${stamp[2]}:${stamp[3]}Z`);
      expect(at).toBeGreaterThanOrEqual(before);
      // Two rotations within one millisecond move the second stamp on by 1 ms rather than overwrite.
      expect(at).toBeLessThanOrEqual(after + backups.length);
    }
  });

  it('splits a batch bigger than a whole file between lines', async () => {
    const path = join(dir, 'spans.jsonl');
    const maxBytes = lineBytes(0) * 3 + 10;
    const e = exporter(path, { maxBytes });
    await e.start();
    await e.export(sampleSpans(8));
    await e.shutdown();
    const files = [...(await listBackups(path)), path];
    const counts = await Promise.all(files.map(async (f) => linesOf(await readFile(f, 'utf8')).length));
    expect(counts).toEqual([3, 3, 2]);
  });

  it('writes a single line longer than the limit alone in its file', async () => {
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path, { maxBytes: 100 });
    await e.start();
    await e.export(sampleSpans(2));
    await e.shutdown();
    const files = [...(await listBackups(path)), path];
    const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    expect(texts).toEqual(linesOf(jsonLines(sampleSpans(2))).map((l) => l + '\n'));
  });

  it('keeps only the newest max_backups rotated files', async () => {
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path, { maxBytes: lineBytes(0), maxBackups: 2 });
    await e.start();
    for (let i = 0; i < 6; i++) await e.export([sampleSpan(i)]);
    await e.shutdown();
    const backups = await listBackups(path);
    expect(backups.length).toBe(2);
    // Six lines, one per file: 0..3 were rotated away oldest first, 3 and 4 are the two kept backups.
    expect(await Promise.all(backups.map((f) => readFile(f, 'utf8')))).toEqual(
      [3, 4].map((i) => encodeSpanJson(sampleSpan(i)) + '\n'),
    );
    expect(await readFile(path, 'utf8')).toBe(encodeSpanJson(sampleSpan(5)) + '\n');
    expect((await readdir(dir)).length).toBe(3);
  });

  it('max_backups 0 keeps every rotated file', async () => {
    const path = join(dir, 'spans.jsonl');
    const e = exporter(path, { maxBytes: lineBytes(0), maxBackups: 0 });
    await e.start();
    for (let i = 0; i < 5; i++) await e.export([sampleSpan(i)]);
    await e.shutdown();
    expect((await listBackups(path)).length).toBe(4);
  });

  it('rotates an existing file that is already over the limit before the first write', async () => {
    const path = join(dir, 'spans.jsonl');
    await writeFile(path, 'x'.repeat(2000) + '\n');
    const e = exporter(path, { maxBytes: lineBytes(0) * 2 });
    await e.start();
    await e.export([sampleSpan(0)]);
    await e.shutdown();
    const backups = await listBackups(path);
    expect(backups.length).toBe(1);
    expect(await readFile(backups[0], 'utf8')).toBe('x'.repeat(2000) + '\n');
    expect(await readFile(path, 'utf8')).toBe(encodeSpanJson(sampleSpan(0)) + '\n');
  });
});
