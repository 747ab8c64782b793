// Damaged segment files, made by editing real files written by the stream.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../log.ts';
import type { IngestStream } from '../stream.ts';
import { captureLogger, recordBounds, recordOf, segmentFiles, tempDir, thr1Backlog } from '../../../test/durability/helpers.ts';
import { thr1BacklogRecords } from '../../../test/durability/fixtures/thr1-backlog.ts';
import { makeSpans } from '../../../test/durability/spans.ts';
import { segmentName } from './segment.ts';
import { createDiskStream } from './disk-stream.ts';
import { HEADER_BYTES, stampSeq } from '../../../codec/disk/record.ts';

const opened: IngestStream[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function openStream(dir: string, logger: Logger = silentLogger, segmentBytes = 1 << 20): Promise<IngestStream> {
  const s = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger, segmentBytes });
  await s.open();
  opened.push(s);
  return s;
}

/** Writes `count` one-span records named r1..rN and closes the stream. */
async function writeRecords(dir: string, count: number, segmentBytes = 1 << 20): Promise<void> {
  const s = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: silentLogger, segmentBytes });
  await s.open();
  for (let i = 1; i <= count; i++) await s.append(makeSpans(`r${i}`));
  await s.close();
}

/** Start offsets of the records in a segment file. */
function recordOffsets(file: string): number[] {
  return recordBounds(fs.readFileSync(file), file).map((r) => r.start);
}

async function readAllNames(stream: IngestStream): Promise<string[]> {
  const reader = stream.reader('check');
  const out: string[] = [];
  while (reader.lag() > 0) {
    const records = await reader.read(1000);
    for (const r of records) for (const s of r.spans) out.push(s.name);
    await reader.commit(records[records.length - 1].seq);
  }
  return out;
}

function quarantineLines(dir: string): Array<Record<string, unknown>> {
  const file = path.join(dir, 'quarantine.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('disk stream recovery', () => {
  it('cuts a torn record at the end, reports the bytes dropped, and keeps every whole record', async () => {
    const dir = tempDir();
    await writeRecords(dir, 10);
    const file = path.join(dir, segmentFiles(dir)[0]);
    const goodSize = fs.statSync(file).size;
    // A record whose write stopped half-way, as after kill -9 or power loss mid-write.
    const torn = recordOf(makeSpans('torn'));
    stampSeq(torn, 11);
    const part = torn.subarray(0, Math.floor(torn.length / 2));
    fs.appendFileSync(file, part);

    const log = captureLogger();
    const stream = await openStream(dir, log.logger);
    const line = log.find('torn record');
    expect(line).toMatchObject({ level: 'warn', bytesDropped: part.length });
    expect(fs.statSync(file).size).toBe(goodSize);
    expect(quarantineLines(dir)).toHaveLength(0);
    expect(await readAllNames(stream)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i + 1}`));
    // The stream goes on from there.
    await stream.append(makeSpans('r11'));
    const next = await stream.reader('check').read(10);
    expect(next.map((r) => [r.seq, r.spans[0].name])).toEqual([[11, 'r11']]);
  });

  it('cuts a torn header (fewer bytes than a header) and garbage at the end', async () => {
    const dir = tempDir();
    await writeRecords(dir, 3);
    const file = path.join(dir, segmentFiles(dir)[0]);
    const goodSize = fs.statSync(file).size;
    fs.appendFileSync(file, Buffer.from([0x54, 0x48, 0x52, 0x31, 9, 9, 9]));
    fs.appendFileSync(file, Buffer.alloc(40, 0));
    const log = captureLogger();
    await openStream(dir, log.logger);
    expect(log.find('torn record')).toMatchObject({ bytesDropped: 47 });
    expect(fs.statSync(file).size).toBe(goodSize);
  });

  it('moves a corrupt record in the middle (payload bit flip) to quarantine and replays the rest', async () => {
    const dir = tempDir();
    await writeRecords(dir, 10);
    const file = path.join(dir, segmentFiles(dir)[0]);
    const offsets = recordOffsets(file);
    const buf = fs.readFileSync(file);
    const at = offsets[4] + HEADER_BYTES + 10;
    buf[at] ^= 0xff;
    fs.writeFileSync(file, buf);

    const log = captureLogger();
    const notified: unknown[] = [];
    const stream = createDiskStream({
      directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: log.logger,
      onQuarantine: (entry) => notified.push(entry),
    });
    await stream.open();
    opened.push(stream);
    const q = quarantineLines(dir);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ offset: offsets[4], length: offsets[5] - offsets[4], reason: 'payload checksum mismatch' });
    expect(Buffer.from(String(q[0].bytes), 'base64').equals(buf.subarray(offsets[4], offsets[5]))).toBe(true);
    expect(log.find('quarantine')).toMatchObject({ level: 'error', offset: offsets[4] });
    expect(notified).toHaveLength(1);
    expect(await readAllNames(stream)).toEqual(['r1', 'r2', 'r3', 'r4', 'r6', 'r7', 'r8', 'r9', 'r10']);
    // The segment was rewritten without it: a second start finds nothing to report.
    await stream.close();
    const log2 = captureLogger();
    await openStream(dir, log2.logger);
    expect(quarantineLines(dir)).toHaveLength(1);
    expect(log2.find('quarantine')).toBeUndefined();
  });

  it('resynchronises after a damaged header in the middle', async () => {
    const dir = tempDir();
    await writeRecords(dir, 6);
    const file = path.join(dir, segmentFiles(dir)[0]);
    const offsets = recordOffsets(file);
    const buf = fs.readFileSync(file);
    buf.fill(0xee, offsets[2], offsets[2] + 12); // magic, length and part of the seq of r3
    fs.writeFileSync(file, buf);
    const stream = await openStream(dir);
    const q = quarantineLines(dir);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ offset: offsets[2], length: offsets[3] - offsets[2] });
    expect(await readAllNames(stream)).toEqual(['r1', 'r2', 'r4', 'r5', 'r6']);
  });

  it('quarantines damage at the end of an older segment instead of cutting it silently', async () => {
    const dir = tempDir();
    await writeRecords(dir, 12, 600);
    const files = segmentFiles(dir);
    expect(files.length).toBeGreaterThan(2);
    const older = path.join(dir, files[0]);
    const offsets = recordOffsets(older);
    const buf = fs.readFileSync(older);
    const lastStart = offsets[offsets.length - 1];
    buf[buf.length - 3] ^= 0x01;
    fs.writeFileSync(older, buf);
    const stream = await openStream(dir, silentLogger, 600);
    expect(quarantineLines(dir)).toMatchObject([{ segment: files[0], offset: lastStart, reason: 'payload checksum mismatch' }]);
    const got = await readAllNames(stream);
    expect(got).toHaveLength(11);
    expect(got).not.toContain(`r${offsets.length}`);
  });

  it('delivers a backlog of THR1 records left by an earlier release after the upgrade, then appends THR2 records after them', async () => {
    const dir = tempDir();
    // What an earlier release left behind (written by its code: test/durability/fixtures): one segment of
    // three records, seq 1..3, not yet delivered.
    fs.writeFileSync(path.join(dir, segmentName(1)), thr1Backlog());
    const expected = thr1BacklogRecords();
    const log = captureLogger();
    const stream = await openStream(dir, log.logger);
    expect(quarantineLines(dir)).toHaveLength(0);
    expect(log.find('torn record')).toBeUndefined();
    await stream.append(makeSpans('r4'));
    // Seq 1..3 are read from the file (THR1), r4 from memory; nothing committed.
    const reader = stream.reader('check');
    const first = [...await reader.read(1000)];
    // A record that could not be decoded would be skipped (quarantined on read): a bounded wait, so
    // that fails as a missing seq rather than a read waiting for ever.
    for (let i = 0; first.length < 4 && i < 3; i++) first.push(...await reader.read(1000, AbortSignal.timeout(5_000)));
    expect(first.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(first.slice(0, 3).map((r) => r.spans)).toStrictEqual(expected);
    expect(first[3].spans).toEqual(makeSpans('r4'));
    // After a restart all four come from the one segment holding both kinds of record.
    await stream.close();
    const again = await openStream(dir);
    const got = await again.reader('check').read(1000);
    expect(got.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(got.slice(0, 3).map((r) => r.spans)).toStrictEqual(expected);
    expect(got[3].spans).toEqual(makeSpans('r4'));
    expect(quarantineLines(dir)).toHaveLength(0);
  });
});
