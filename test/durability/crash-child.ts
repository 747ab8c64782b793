// Child process of crash.test.ts: appends continuously to a disk stream and prints "ack <id>" on stdout
// once each append resolved (stdout to a pipe is synchronous on Linux, so a printed ack reached the
// parent even if we are killed right after). A reader plays the exporter: it appends span names to a
// file, syncs it, then commits, as the file exporter does. The parent kills us with SIGKILL.
// Usage: node crash-child.ts <stream dir> <delivered file> <fsync> <tag>
import fs from 'node:fs';
import { silentLogger } from '../../pipeline/log.ts';
import { createDiskStream, type FsyncMode } from '../../pipeline/stream/disk/disk-stream.ts';
import { makeSpans } from './spans.ts';

const [dir, deliveredFile, fsyncMode, tag] = process.argv.slice(2);
const SPANS_PER_RECORD = 10;
const WRITERS = 16;

// Like the file exporter: a last line without its newline was torn by the previous kill; cut it off
// (its record was not committed, so it is delivered again).
if (fs.existsSync(deliveredFile)) {
  const text = fs.readFileSync(deliveredFile, 'utf8');
  const cut = text.lastIndexOf('\n') + 1;
  if (cut < text.length) fs.truncateSync(deliveredFile, Buffer.byteLength(text.slice(0, cut)));
}

const stream = createDiskStream({
  directory: dir,
  fsync: fsyncMode as FsyncMode,
  fsyncIntervalMs: 50,
  maxBytes: 256 * 1024 * 1024,
  segmentBytes: 64 * 1024,
  logger: silentLogger,
});
await stream.open();

async function exporter(): Promise<void> {
  const reader = stream.reader('exporter');
  const fd = fs.openSync(deliveredFile, 'a');
  for (;;) {
    const records = await reader.read(500);
    if (records.length === 0) return;
    let text = '';
    for (const r of records) for (const s of r.spans) text += `${s.name}\n`;
    fs.writeSync(fd, text);
    fs.fdatasyncSync(fd);
    await reader.commit(records[records.length - 1].seq);
  }
}

async function writer(w: number): Promise<void> {
  for (let n = 0; ; n++) {
    const id = `${tag}-${w}-${n}`;
    try {
      await stream.append(makeSpans(id, SPANS_PER_RECORD));
      process.stdout.write(`ack ${id}\n`);
    } catch (err) {
      process.stdout.write(`refused ${id} ${(err as Error).message}\n`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

process.stdout.write('ready\n');
void exporter();
for (let w = 0; w < WRITERS; w++) void writer(w);
