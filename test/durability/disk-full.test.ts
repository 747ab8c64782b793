// A really full disk: a 1 MiB tmpfs mounted for the test (root only). Without root, the same scenario
// runs on the simulated ENOSPC file layer (helpers.ts) and the test says so in its output.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RefusedError } from '../../pipeline/errors.ts';
import { createDiskStream } from '../../pipeline/stream/disk/disk-stream.ts';
import type { IngestStream } from '../../pipeline/stream/stream.ts';
import { captureLogger, recordBounds, segmentFiles, testIo, waitFor, type TestIo } from './helpers.ts';
import { makeSpans } from './spans.ts';
import { mountTmpfs } from '../helpers/tmpfs.ts';

const tmpfs = mountTmpfs('tracehop-tmpfs-');
const { mounted, dir: mountPoint } = tmpfs;

afterAll(() => tmpfs.remove());

/** Every segment file parses from start to end into whole valid records; returns their count. */
function checkSegments(dir: string): number {
  let records = 0;
  for (const name of segmentFiles(dir)) records += recordBounds(fs.readFileSync(path.join(dir, name)), name).length;
  return records;
}

describe(`disk full (${mounted ? 'real 1 MiB tmpfs' : 'simulated ENOSPC: mounting a tmpfs needs root'})`, () => {
  it('refuses with RefusedError, leaves no partial record, and recovers once space returns', async () => {
    const dir = path.join(mountPoint, 'stream');
    const io: TestIo | undefined = mounted ? undefined : testIo();
    const log = captureLogger();
    const options = { directory: dir, fsync: 'always' as const, fsyncIntervalMs: 1000, maxBytes: 64 * 1024 * 1024, segmentBytes: 128 * 1024, logger: log.logger, io };
    let stream: IngestStream = createDiskStream(options);
    await stream.open();
    const reader = stream.reader('exporter');

    let accepted = 0;
    let refused: RefusedError | undefined;
    for (let i = 0; i < 5000 && !refused; i++) {
      if (io && accepted === 150) {
        io.full = true;
        io.partialBytes = 700;
      }
      try {
        await stream.append(makeSpans(`a${i}`, 10));
        accepted++;
      } catch (err) {
        if (!(err instanceof RefusedError)) throw err;
        refused = err;
      }
    }
    console.log(`disk full after ${accepted} records (${mounted ? 'tmpfs' : 'simulated'})`);
    expect(refused?.message).toMatch(/disk full/);
    expect(refused?.status).toBe(503);
    expect(accepted).toBeGreaterThan(10);
    expect(log.find('disk full')).toBeDefined();
    // No torn bytes: every file holds exactly the acknowledged records.
    expect(checkSegments(dir)).toBe(accepted);
    await expect(stream.append(makeSpans('still-full', 10))).rejects.toBeInstanceOf(RefusedError);

    // The exporter delivers everything; its segments are deleted and space returns.
    let delivered = 0;
    while (reader.lag() > 0) {
      const records = await reader.read(2000);
      for (const r of records) delivered += r.spans.length;
      await reader.commit(records[records.length - 1].seq);
    }
    expect(delivered).toBe(accepted * 10);
    if (io) io.full = false;
    let after = 0;
    await waitFor(() => segmentFiles(dir).length <= 2, 'delivered segments deleted');
    for (let i = 0; i < 20; i++) {
      if (await stream.append(makeSpans(`b${i}`, 10)).then(() => true, () => false)) after++;
    }
    expect(after).toBe(20);
    await stream.close();

    // A restart finds a clean stream: nothing torn, nothing quarantined, the 20 new records for the reader.
    const log2 = captureLogger();
    stream = createDiskStream({ ...options, logger: log2.logger });
    await stream.open();
    expect(log2.find('torn')).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'quarantine.jsonl'))).toBe(false);
    const replay = await stream.reader('exporter').read(10_000);
    expect(replay.flatMap((r) => r.spans.map((s) => s.name))[0]).toBe('b0#0');
    expect(replay.reduce((n, r) => n + r.spans.length, 0)).toBe(200);
    await stream.close();
  });
});
