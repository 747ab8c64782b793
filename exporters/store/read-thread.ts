// The body of the store's read thread (read-worker.ts starts it): an SQL executor with its own read-only
// connection. It must reference nothing outside itself: read-worker.ts starts it from its source text
// (`new Worker(source, { eval: true })`), so that it runs the same from dist/ and from the single
// executable's one bundled file, where there is no separate file to load.
import type * as Sqlite from 'node:sqlite';
import type * as Threads from 'node:worker_threads';

/** What the main thread sends per statement. */
export interface ReadRequest {
  id: number;
  sql: string;
  params: Array<string | number | bigint | null>;
}

/** What the thread answers: `begun` once the statement's snapshot is taken, then chunks of rows, `done` last. */
export type ReadReply =
  | { id: number; begun: true }
  | { id: number; rows: Array<Record<string, unknown>>; done: boolean }
  | { id: number; error: string }
  | { ready: true }
  | { fatal: string };

/** Flow control from the main thread, on its own port so a running statement can read it synchronously. */
export type ReadControl = { id: number; consumed: number } | { id: number; stop: true };

export interface ReadThreadData {
  path: string;
  control: Threads.MessagePort;
  /** An Int32 the main thread bumps (and notifies) after each control message. */
  signal: SharedArrayBuffer;
  chunkRows: number;
  /** Chunks a statement may have sent ahead of the ones the main thread consumed. */
  window: number;
}

export function readThreadMain(threads: typeof Threads, sqlite: typeof Sqlite): void {
  const port = threads.parentPort!;
  const data = threads.workerData as ReadThreadData;
  let db: Sqlite.DatabaseSync;
  try {
    db = new sqlite.DatabaseSync(data.path, { readOnly: true, timeout: 5000 });
  } catch (error) {
    port.postMessage({ fatal: (error as Error).message });
    return;
  }
  const signal = new Int32Array(data.signal);
  const consumed = new Map<number, number>();
  const stopped = new Set<number>();
  // Ids grow and statements run in order: a message about an id before the current one is late, not kept.
  let current = 0;
  const drain = () => {
    for (let m = threads.receiveMessageOnPort(data.control); m !== undefined; m = threads.receiveMessageOnPort(data.control)) {
      const c = m.message as ReadControl;
      if (c.id < current) continue;
      if ('stop' in c) stopped.add(c.id);
      else consumed.set(c.id, Math.max(c.consumed, consumed.get(c.id) ?? 0));
    }
  };
  // Blocks until the main thread has consumed enough chunks; false when it stopped the statement.
  const room = (id: number, sent: number): boolean => {
    for (;;) {
      const seen = Atomics.load(signal, 0);
      drain();
      if (stopped.has(id)) return false;
      if (sent - (consumed.get(id) ?? 0) < data.window) return true;
      Atomics.wait(signal, 0, seen);
    }
  };
  port.on('message', (request: ReadRequest) => {
    const { id } = request;
    current = id;
    drain();
    try {
      if (stopped.has(id)) return;
      db.exec('BEGIN');
      // The first read takes the snapshot the statement reads; the main thread may hold writes until then.
      db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
      port.postMessage({ id, begun: true });
      const statement = db.prepare(request.sql);
      statement.setReadBigInts(true);
      let rows: Array<Record<string, unknown>> = [];
      let sent = 0;
      let stop = false;
      let seen = Atomics.load(signal, 0);
      for (const row of statement.iterate(...request.params)) {
        // A control message arrived (one atomic read per row): the main thread may have had enough.
        if (Atomics.load(signal, 0) !== seen) {
          seen = Atomics.load(signal, 0);
          drain();
          if (stopped.has(id)) {
            stop = true;
            break;
          }
        }
        rows.push(row as Record<string, unknown>);
        if (rows.length < data.chunkRows) continue;
        port.postMessage({ id, rows, done: false });
        rows = [];
        if (!room(id, ++sent)) {
          stop = true;
          break;
        }
      }
      if (!stop) port.postMessage({ id, rows, done: true });
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message });
    } finally {
      if (db.isTransaction) db.exec('COMMIT');
      consumed.delete(id);
      stopped.delete(id);
    }
  });
  port.postMessage({ ready: true });
}
