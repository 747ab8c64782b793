// Child process of poison.test.ts. `append`: writes records r1..r5, r3 holding a span named "poison".
// `consume`: delivers records to a file and commits; on a record with the poison span it dies at once
// (process.exit, no cleanup), as a process crashing in an exporter would.
// Usage: node poison-child.ts <stream dir> <out dir> append|consume
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../pipeline/log.ts';
import { createDiskStream } from '../../pipeline/stream/disk/disk-stream.ts';
import { makeSpans } from './spans.ts';

const [dir, out, mode] = process.argv.slice(2);
const stream = createDiskStream({
  directory: dir,
  fsync: 'always',
  fsyncIntervalMs: 1000,
  maxBytes: 1 << 24,
  logger: silentLogger,
  deadLetter: {
    maxAttempts: 3,
    async write(consumerId, spans, reason) {
      for (const s of spans) fs.appendFileSync(path.join(out, 'dead-letters.jsonl'), JSON.stringify({ consumerId, name: s.name, reason }) + '\n');
    },
  },
});
await stream.open();
if (mode === 'append') {
  for (let i = 1; i <= 5; i++) await stream.append(i === 3 ? [...makeSpans('r3'), ...makeSpans('poison')] : makeSpans(`r${i}`));
  await stream.close();
} else {
  const reader = stream.reader('exporter');
  while (reader.lag() > 0) {
    const records = await reader.read(1000);
    // An export takes a moment: the delivery mark is written meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const r of records) for (const s of r.spans) if (s.name === 'poison') process.exit(70);
    for (const r of records) for (const s of r.spans) fs.appendFileSync(path.join(out, 'delivered.txt'), `${s.name}\n`);
    await reader.commit(records[records.length - 1].seq);
  }
  await stream.close();
}
