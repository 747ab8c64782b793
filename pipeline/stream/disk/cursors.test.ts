import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../log.ts';
import { captureLogger, tempDir } from '../../../test/durability/helpers.ts';
import { makeSpans } from '../../../test/durability/spans.ts';
import type { IngestStream } from '../stream.ts';
import { CursorStore, loadCursors, type CursorState } from './cursors.ts';
import { createDiskStream } from './disk-stream.ts';
import { nodeIo, type DiskIo } from './io.ts';

const opened: IngestStream[] = [];
const stores: CursorStore[] = [];

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const s of stores.splice(0)) await s.close();
});

async function openStream(dir: string): Promise<IngestStream> {
  const stream = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: silentLogger });
  await stream.open();
  opened.push(stream);
  return stream;
}

function storeFor(dir: string, state: CursorState): CursorStore {
  const store = new CursorStore(nodeIo, dir, silentLogger, () => state);
  stores.push(store);
  return store;
}

describe('stream cursors', () => {
  it('recovers a stream directory of the previous release, whose cursors.json has no checksum', async () => {
    const dir = tempDir();
    const first = await openStream(dir);
    first.reader('a');
    for (let i = 1; i <= 10; i++) await first.append(makeSpans(`r${i}`));
    await first.close();
    // As the previous release left it: the file replaced whole, no checksum. Its segments are in the
    // same format (codec.test.ts: a record appended in a group is byte for byte the record appended alone).
    fs.writeFileSync(path.join(dir, 'cursors.json'), '{"version":1,"readers":{"a":4}}\n');

    const second = await openStream(dir);
    const got = await second.reader('a').read(1000);
    expect(got[0].seq).toBe(5);
    expect(got.at(-1)!.seq).toBe(10);
  });

  it('takes an earlier release\'s file with a reader named "crc": only a top-level crc is a checksum', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'cursors.json'), '{"version":1,"readers":{"a":4,"crc":7}}\n');
    const back = await loadCursors(nodeIo, dir, silentLogger);
    expect([...back.cursors]).toEqual([['a', 4], ['crc', 7]]);

    // Written by this release, with the checksum after it.
    const store = storeFor(dir, { cursors: new Map([['a', 5], ['crc', 8]]), delivering: new Map() });
    await store.persist();
    const again = await loadCursors(nodeIo, dir, silentLogger);
    expect([...again.cursors]).toEqual([['a', 5], ['crc', 8]]);
  });

  it('writes in place after the first write: the same file, a shorter state padded, every state read back', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cursors.json');
    const state: CursorState = { cursors: new Map([['a', 3]]), delivering: new Map([['a', { from: 4, attempts: 2 }]]) };
    const store = storeFor(dir, state);
    await store.persist();
    const inode = fs.statSync(file).ino;
    const longer = fs.statSync(file).size;

    state.cursors.set('a', 12);
    state.delivering.clear();
    await store.persist();
    expect(fs.statSync(file).ino).toBe(inode);
    expect(fs.statSync(file).size).toBe(longer);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/} +\n$/);
    const back = await loadCursors(nodeIo, dir, silentLogger);
    expect([...back.cursors]).toEqual([['a', 12]]);
    expect(back.delivering.size).toBe(0);

    state.cursors.set('a', 13);
    state.delivering.set('a', { from: 14, attempts: 1 });
    await store.persist();
    const again = await loadCursors(nodeIo, dir, silentLogger);
    expect([...again.cursors]).toEqual([['a', 13]]);
    expect([...again.delivering]).toEqual([['a', { from: 14, attempts: 1 }]]);
  });

  it('does not trust a torn cursor file: its readers start from the oldest retained record', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cursors.json');
    const store = storeFor(dir, { cursors: new Map([['a', 12]]), delivering: new Map() });
    await store.persist();
    // A write cut short by a machine crash: bytes of another state, the JSON still well formed.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"a":12', '"a":19'));
    const log = captureLogger();
    const back = await loadCursors(nodeIo, dir, log.logger);
    expect(back.cursors.size).toBe(0);
    expect(log.find('unreadable')?.error).toBeDefined();
  });

  it('writes nothing after the stream closed: a late commit neither changes the file nor leaves a handle open', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cursors.json');
    const handles = new Set<number>();
    const io: DiskIo = {
      ...nodeIo,
      async open(p, flags) {
        const fd = await nodeIo.open(p, flags);
        handles.add(fd);
        return fd;
      },
      async close(fd) {
        handles.delete(fd);
        return nodeIo.close(fd);
      },
    };
    const stream = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: silentLogger, io });
    await stream.open();
    const reader = stream.reader('a');
    for (let i = 1; i <= 3; i++) await stream.append(makeSpans(`r${i}`));
    const got = await reader.read(1000);
    await reader.commit(got[0].seq);
    await stream.close();
    const before = fs.readFileSync(file, 'utf8');
    expect(handles.size).toBe(0);

    // An exporter finishing its delivery after the shutdown.
    await reader.commit(got.at(-1)!.seq);
    expect(handles.size).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('a store persists nothing once closed', async () => {
    const dir = tempDir();
    const state: CursorState = { cursors: new Map([['a', 3]]), delivering: new Map() };
    const store = storeFor(dir, state);
    await store.persist();
    await store.close();
    state.cursors.set('a', 9);
    await store.persist();
    const back = await loadCursors(nodeIo, dir, silentLogger);
    expect([...back.cursors]).toEqual([['a', 3]]);
  });
});
