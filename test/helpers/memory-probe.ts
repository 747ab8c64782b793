// Loaded into a daemon under test with `--import` (NODE_OPTIONS), never by the daemon itself: on SIGUSR2
// it collects garbage and writes what is live as one JSON log line on stderr, so a test can compare the
// daemon's memory before and after a burst without an inspector. Two collections, as the memory
// limiter's: V8 counts the Buffers the first one freed as external memory until the next.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

process.on('SIGUSR2', () => {
  gc();
  gc();
  const heap = getHeapStatistics();
  const line = { level: 'info', msg: 'memory probe', live_bytes: heap.used_heap_size + heap.external_memory };
  process.stderr.write(JSON.stringify(line) + '\n');
});

