import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RefusedError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { IngestStream, StreamRecord } from '../stream.ts';
import { captureLogger, segmentFiles, tempDir, testIo, waitFor, type TestIo } from '../../../test/durability/helpers.ts';
import { makeSpans } from '../../../test/durability/spans.ts';
import { createDiskStream, type DiskStreamOptions } from './disk-stream.ts';

const open: IngestStream[] = [];

async function openStream(dir: string, extra: Partial<DiskStreamOptions> = {}): Promise<IngestStream> {
  const stream = createDiskStream({
    directory: dir,
    fsync: 'always',
    fsyncIntervalMs: 1000,
    maxBytes: 16 * 1024 * 1024,
    logger: silentLogger,
    ...extra,
  });
  await stream.open();
  open.push(stream);
  return stream;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function names(records: StreamRecord[]): string[] {
  return records.flatMap((r) => r.spans.map((s) => s.name));
}

/** Reads everything currently visible to `reader`. */
async function drain(stream: IngestStream, id: string): Promise<StreamRecord[]> {
  const reader = stream.reader(id);
  const out: StreamRecord[] = [];
  const ac = new AbortController();
  for (;;) {
    if (reader.lag() === 0 && out.length > 0) break;
    const timer = setTimeout(() => ac.abort(), 200);
    const got = await reader.read(1000, ac.signal);
    clearTimeout(timer);
    if (got.length === 0) break;
    out.push(...got);
  }
  return out;
}

describe('disk stream: append, read, commit', () => {
  it('hands records to a reader in order with the spans intact, whole records up to maxSpans', async () => {
    const stream = await openStream(tempDir());
    const reader = stream.reader('exporter/a');
    for (let i = 0; i < 5; i++) await stream.append(makeSpans(`r${i}`, 3));
    const first = await reader.read(7);
    expect(first.map((r) => r.seq)).toEqual([1, 2]);
    expect(first[0].spans[0].startNs).toBe(1776363498123456789n);
    expect(first[0].spans[0].attributes.get('big')).toBe(9007199254740993n);
    expect('links' in first[0].spans[1]).toBe(false);
    expect(first[0].spans[0].links).toEqual([]);
    const rest = await reader.read(1000);
    expect(rest.map((r) => r.seq)).toEqual([3, 4, 5]);
    expect(reader.lag()).toBe(15);
    await reader.commit(5);
    expect(reader.lag()).toBe(0);
    expect(stream.stats()).toEqual({ records: 0, spans: 0, bytes: 0 });
  });

  it('a read waits for the next append, and resolves [] when aborted', async () => {
    const stream = await openStream(tempDir());
    const reader = stream.reader('a');
    const waiting = reader.read(10);
    await stream.append(makeSpans('late'));
    expect(names(await waiting)).toEqual(['late']);
    const ac = new AbortController();
    const aborted = reader.read(10, ac.signal);
    ac.abort();
    expect(await aborted).toEqual([]);
  });

  it('deletes a segment only once every reader committed past it', async () => {
    const dir = tempDir();
    const stream = await openStream(dir, { segmentBytes: 2048 });
    const a = stream.reader('a');
    const b = stream.reader('b');
    for (let i = 0; i < 40; i++) await stream.append(makeSpans(`r${i}`, 2));
    const before = segmentFiles(dir).length;
    expect(before).toBeGreaterThan(5);
    const all = await drain(stream, 'a');
    expect(all).toHaveLength(40);
    await a.commit(40);
    // b has not committed: nothing may go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(segmentFiles(dir).length).toBe(before);
    await b.commit(20);
    await waitFor(() => segmentFiles(dir).length < before, 'segments up to seq 20 deleted');
    const seqsLeft = segmentFiles(dir).map((n) => Number(n.slice(0, 20)));
    // The first remaining segment is the one holding seq 21.
    expect(seqsLeft[0]).toBeLessThanOrEqual(21);
    expect(stream.stats().records).toBe(20);
    await b.commit(40);
    await waitFor(() => segmentFiles(dir).length <= 1, 'all closed segments deleted');
    expect(stream.stats()).toEqual({ records: 0, spans: 0, bytes: 0 });
  });

  it('keeps cursors across a reopen; a reader created later starts at the oldest retained record', async () => {
    const dir = tempDir();
    const first = await openStream(dir, { segmentBytes: 1024 });
    const a = first.reader('a');
    for (let i = 1; i <= 30; i++) await first.append(makeSpans(`r${i}`));
    await a.read(12);
    await a.commit(12);
    await first.close();
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'cursors.json'), 'utf8')).readers).toEqual({ a: 12 });

    const second = await openStream(dir, { segmentBytes: 1024 });
    const again = await drain(second, 'a');
    expect(again[0].seq).toBe(13);
    expect(again.at(-1)?.seq).toBe(30);
    const late = await drain(second, 'late');
    // Segments wholly before seq 13 were deleted; the late reader gets everything still held.
    expect(late[0].seq).toBeLessThanOrEqual(13);
    expect(late.at(-1)?.seq).toBe(30);
    expect(names(late)).toContain('r13');
    // Appends after a reopen continue the sequence.
    await second.append(makeSpans('r31'));
    const next = await second.reader('a').read(10);
    expect(next.map((r) => r.seq)).toEqual([31]);
  });

  it('a reader asked for before open() gets its persisted cursor, and its commits count', async () => {
    const dir = tempDir();
    const first = await openStream(dir, { segmentBytes: 512 });
    const a = first.reader('a');
    for (let i = 1; i <= 10; i++) await first.append(makeSpans(`r${i}`));
    await a.read(6);
    await a.commit(6);
    await first.close();

    const second = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: silentLogger, segmentBytes: 512 });
    open.push(second);
    const early = second.reader('a');
    const fresh = second.reader('fresh');
    const pendingRead = early.read(100);
    await second.open();
    expect(second.reader('a')).toBe(early);
    const seqs = (await pendingRead).map((r) => r.seq);
    while (seqs.at(-1)! < 10) seqs.push(...(await early.read(100)).map((r) => r.seq));
    expect(seqs).toEqual([7, 8, 9, 10]);
    expect((await fresh.read(100))[0].seq).toBeLessThanOrEqual(7);
    await early.commit(10);
    await second.close();
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'cursors.json'), 'utf8')).readers.a).toBe(10);
  });

  it('serves readers that keep up from memory and a backlog after restart from the segment files', async () => {
    const dir = tempDir();
    const io = testIo();
    const first = await openStream(dir, { io });
    const reader = first.reader('a');
    for (let i = 0; i < 20; i++) {
      await first.append(makeSpans(`r${i}`));
      await reader.read(100);
    }
    expect(io.reads).toBe(0);
    await first.close();
    const io2 = testIo();
    const second = await openStream(dir, { io: io2 });
    const backlog = await drain(second, 'a');
    expect(backlog).toHaveLength(20);
    expect(io2.reads).toBeGreaterThan(0);
    expect(backlog[19].spans[0].name).toBe('r19');
  });
});

describe('disk stream: group commit and fsync modes', () => {
  it('fsync always: concurrent appends share fsyncs and each resolves only after a sync covering it', async () => {
    const io: TestIo = testIo();
    const stream = await openStream(tempDir(), { io });
    const syncsBefore = io.syncs;
    let uncovered = 0;
    const appends = Array.from({ length: 300 }, (_, i) =>
      stream.append(makeSpans(`c${i}`, 5)).then(() => {
        if (io.syncedBytes < io.writtenBytes) uncovered++;
      }),
    );
    await Promise.all(appends);
    const syncs = io.syncs - syncsBefore;
    expect(uncovered).toBe(0);
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThan(30);
    expect(stream.stats().records).toBe(300);
  });

  it('fsync never: appends resolve after the write without any sync', async () => {
    const io = testIo();
    const stream = await openStream(tempDir(), { io, fsync: 'never' });
    const syncsBefore = io.syncs;
    await Promise.all(Array.from({ length: 50 }, (_, i) => stream.append(makeSpans(`n${i}`))));
    expect(io.syncs - syncsBefore).toBe(0);
    expect(io.writtenBytes).toBeGreaterThan(0);
    expect(io.syncedBytes).toBeLessThan(io.writtenBytes);
  });

  it('fsync interval: a timer syncs what was written', async () => {
    const io = testIo();
    const stream = await openStream(tempDir(), { io, fsync: 'interval', fsyncIntervalMs: 20 });
    await stream.append(makeSpans('i1'));
    expect(io.syncedBytes).toBeLessThan(io.writtenBytes);
    await waitFor(() => io.syncedBytes === io.writtenBytes, 'the interval sync');
    expect(io.syncs).toBeGreaterThan(0);
  });
});

describe('disk stream: bounds and failures', () => {
  it('refuses appends with RefusedError at max_bytes, and accepts again once readers free space', async () => {
    const dir = tempDir();
    const stream = await openStream(dir, { maxBytes: 16 * 1024, segmentBytes: 2048 });
    const reader = stream.reader('a');
    let accepted = 0;
    let refused: unknown;
    for (let i = 0; i < 200 && !refused; i++) {
      try {
        await stream.append(makeSpans(`f${i}`, 2));
        accepted++;
      } catch (err) {
        refused = err;
      }
    }
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as RefusedError).status).toBe(503);
    expect((refused as RefusedError).retryAfterMs).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(5);
    const onDisk = segmentFiles(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    expect(onDisk).toBeLessThanOrEqual(16 * 1024);
    // Still refused while nothing is committed.
    await expect(stream.append(makeSpans('still-full', 2))).rejects.toBeInstanceOf(RefusedError);

    const all = await drain(stream, 'a');
    expect(all).toHaveLength(accepted);
    await reader.commit(all.at(-1)!.seq);
    await waitFor(() => stream.stats().records === 0, 'commit processed');
    let ok = false;
    for (let i = 0; i < 100 && !ok; i++) {
      ok = await stream.append(makeSpans('after', 2)).then(() => true, () => false);
      if (!ok) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(ok).toBe(true);
  });

  it('takes one record larger than max_bytes when nothing is held (as the memory stream does)', async () => {
    const stream = await openStream(tempDir(), { maxBytes: 1024 });
    expect(stream.refusal()).toBeUndefined();
    await stream.append(makeSpans('big', 10));
    // At the bound: the refusal a receiver gets before decoding is the one an append gets.
    expect(stream.refusal()?.message).toMatch(/^ingest stream full \(storage\.max_bytes 1024 reached\)/);
    await expect(stream.append(makeSpans('big2', 10))).rejects.toBeInstanceOf(RefusedError);
    const reader = stream.reader('a');
    await reader.read(100);
    await reader.commit(1);
    await waitFor(() => stream.refusal() === undefined, 'space freed');
    await stream.append(makeSpans('big3', 10));
  });

  it('disk full (simulated ENOSPC, partial write): refused, the partial bytes cut, recovery when space returns', async () => {
    const dir = tempDir();
    const io = testIo();
    const log = captureLogger();
    const stream = await openStream(dir, { io, logger: log.logger });
    for (let i = 0; i < 5; i++) await stream.append(makeSpans(`ok${i}`));
    const segment = path.join(dir, segmentFiles(dir)[0]);
    const sizeBefore = fs.statSync(segment).size;
    io.full = true;
    io.partialBytes = 100;
    const refused = await stream.append(makeSpans('lost')).catch((err) => err);
    expect(refused).toBeInstanceOf(RefusedError);
    expect(refused.message).toMatch(/disk full/);
    expect(fs.statSync(segment).size).toBe(sizeBefore);
    expect(log.find('disk full')).toBeDefined();
    await expect(stream.append(makeSpans('lost2'))).rejects.toBeInstanceOf(RefusedError);
    io.full = false;
    await stream.append(makeSpans('ok5'));
    await stream.close();
    const reopened = await openStream(dir);
    expect(names(await drain(reopened, 'check'))).toEqual(['ok0', 'ok1', 'ok2', 'ok3', 'ok4', 'ok5']);
  });

  // A small volume with the default bound (64 MiB segments): the open segment is all there is, so the
  // space returns only if the stream deletes it once delivered, although it is small.
  function fullUntilASegmentIsDeleted(): TestIo {
    const io = testIo();
    const unlink = io.unlink;
    io.unlink = async (file) => {
      await unlink(file);
      if (file.endsWith('.seg')) io.full = false;
    };
    return io;
  }

  it('disk full of its own records: the open segment is deleted once delivered, and appends resume', async () => {
    const dir = tempDir();
    const io = fullUntilASegmentIsDeleted();
    const stream = await openStream(dir, { io, maxBytes: 1024 * 1024 * 1024 });
    const reader = stream.reader('a');
    for (let i = 0; i < 5; i++) await stream.append(makeSpans(`ok${i}`));
    io.full = true;
    await expect(stream.append(makeSpans('refused'))).rejects.toBeInstanceOf(RefusedError);
    const all = await drain(stream, 'a');
    expect(names(all)).toEqual(['ok0', 'ok1', 'ok2', 'ok3', 'ok4']);
    await reader.commit(all.at(-1)!.seq);
    await waitFor(() => segmentFiles(dir).length === 0, 'the delivered open segment deleted');
    await stream.append(makeSpans('after'));
    expect(names(await drain(stream, 'a'))).toEqual(['after']);
  });

  it('disk full after the readers caught up: the failed append itself frees the delivered open segment', async () => {
    const dir = tempDir();
    const io = fullUntilASegmentIsDeleted();
    const stream = await openStream(dir, { io, maxBytes: 1024 * 1024 * 1024 });
    const reader = stream.reader('a');
    for (let i = 0; i < 5; i++) await stream.append(makeSpans(`ok${i}`));
    const all = await drain(stream, 'a');
    await reader.commit(all.at(-1)!.seq);
    await waitFor(() => stream.stats().records === 0, 'commit processed');
    expect(segmentFiles(dir)).toHaveLength(1); // small: kept open for the next appends
    io.full = true;
    await expect(stream.append(makeSpans('refused'))).rejects.toBeInstanceOf(RefusedError);
    expect(segmentFiles(dir)).toHaveLength(0);
    await stream.append(makeSpans('after'));
    expect(names(await drain(stream, 'a'))).toEqual(['after']);
  });

  it('seal refuses appends while readers drain; close ends waiting reads', async () => {
    const stream = await openStream(tempDir());
    const reader = stream.reader('a');
    const queued = stream.append(makeSpans('before-seal'));
    stream.seal();
    await queued;
    await expect(stream.append(makeSpans('after-seal'))).rejects.toBeInstanceOf(RefusedError);
    expect(names(await reader.read(10))).toEqual(['before-seal']);
    expect(await reader.read(10)).toEqual([]);
    const other = stream.reader('b');
    await other.read(10);
    const waiting = stream.reader('c');
    await waiting.read(10);
    const pending = waiting.read(10);
    await stream.close();
    expect(await pending).toEqual([]);
    await expect(stream.append(makeSpans('closed'))).rejects.toBeInstanceOf(RefusedError);
  });

  it('refuses a second open of the same directory', async () => {
    const dir = tempDir();
    await openStream(dir);
    const second = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 20, logger: silentLogger });
    await expect(second.open()).rejects.toThrow(/already open/);
  });

  it('drops persisted cursors of consumers no longer configured', async () => {
    const dir = tempDir();
    const first = await openStream(dir, { segmentBytes: 512 });
    first.reader('gone');
    const kept = first.reader('kept');
    for (let i = 0; i < 10; i++) await first.append(makeSpans(`r${i}`));
    await kept.read(100);
    await kept.commit(10);
    await first.close();
    const log = captureLogger();
    const second = await openStream(dir, { segmentBytes: 512, consumers: ['kept'], logger: log.logger });
    expect(log.find('no longer configured')).toMatchObject({ reader: 'gone' });
    expect(second.stats().records).toBe(0);
  });
});
