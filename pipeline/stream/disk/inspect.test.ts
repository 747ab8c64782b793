import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../log.ts';
import { recordOf, tempDir, thr1Backlog } from '../../../test/durability/helpers.ts';
import { stampSeq } from '../../../codec/disk/record.ts';
import { segmentName } from './segment.ts';
import { makeSpans } from '../../../test/durability/spans.ts';
import { createDiskStream } from './disk-stream.ts';
import { inspectStream } from './inspect.ts';

async function streamWithCommit(dir: string): Promise<void> {
  const stream = createDiskStream({ directory: dir, fsync: 'always', fsyncIntervalMs: 1000, maxBytes: 1 << 24, logger: silentLogger });
  await stream.open();
  const reader = stream.reader('a');
  for (let i = 1; i <= 4; i++) await stream.append(makeSpans(`r${i}`));
  const got = await reader.read(1000);
  await reader.commit(got[1].seq);
  await stream.close();
}

describe('inspect a stream directory', () => {
  it('reads cursors.json as the daemon does: a torn file is reported and no cursor taken from it', async () => {
    const dir = tempDir();
    await streamWithCommit(dir);
    const whole = await inspectStream(dir);
    expect(whole.readers.map((r) => [r.id, r.committed, r.backlog.records])).toEqual([['a', 2, 2]]);
    expect(whole.cursorsProblem).toBeUndefined();

    // A write in place cut short by a machine crash: well-formed JSON whose checksum no longer holds.
    const file = path.join(dir, 'cursors.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"a":2', '"a":3'));
    const torn = await inspectStream(dir);
    expect(torn.readers).toEqual([]);
    expect(torn.cursorsProblem).toMatch(/checksum mismatch/);
  });

  it('counts the records of earlier releases (THR1) and current ones (THR2) alike', async () => {
    const dir = tempDir();
    // Three THR1 records of 1, 2 and 1 spans written by an earlier release (test/durability/fixtures).
    const older = thr1Backlog();
    const newer = recordOf(makeSpans('r4', 2));
    stampSeq(newer, 4);
    fs.writeFileSync(path.join(dir, segmentName(1)), Buffer.concat([older, newer]));
    const report = await inspectStream(dir);
    expect(report.segments).toMatchObject([{ records: 4, spans: 6, firstSeq: 1, lastSeq: 4 }]);
    expect(report.segments[0].damage).toBeUndefined();
  });
});
