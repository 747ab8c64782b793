// The store's read thread, seen from the main thread (read-api.md §9.2): queries' statements run on a
// worker thread with its own read-only connection, so the heavy scan of a slow query never holds the event
// loop (the write routes' acknowledgements, the exporters). The main thread builds each statement, takes
// its rows a chunk at a time (the thread stays at most a few chunks ahead) and stops it when it has enough.
// Past `query_timeout` the main thread stops waiting (QueryTimeoutError, 503) and, when the statement is
// running, ends the thread and starts a new one: node:sqlite has no way to interrupt a statement.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { QueryTimeoutError } from './query-timeout.ts';
import { readThreadMain, type ReadControl, type ReadReply, type ReadRequest, type ReadThreadData } from './read-thread.ts';

/** Rows per message from the thread. */
const CHUNK_ROWS = 256;
/** Chunks the thread may send ahead of the ones consumed. */
const WINDOW = 2;

// The thread's source: read-thread.ts's function, self-contained, given the two modules it uses.
const SOURCE = `(${readThreadMain.toString()})(require('node:worker_threads'), require('node:sqlite'));`;

type Row = Record<string, unknown>;

interface Pending {
  request: ReadRequest;
  chunks: Row[][];
  begun: boolean;
  done: boolean;
  error?: Error;
  /** Wakes the consumer waiting for a chunk. */
  wake?: () => void;
  /** Resolved once the statement's snapshot is taken (or it will never be). */
  taken: Promise<void>;
  take: () => void;
}

interface Thread {
  worker: Worker;
  control: MessagePort;
  signal: Int32Array;
}

export class ReadWorker {
  readonly #path: string;
  #thread: Thread | undefined;
  /** Statements sent and not finished, in the order the thread runs them. */
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** The snapshot of the statement last sent to an idle thread, until taken. */
  #snapshot: Promise<void> | undefined;
  /** Threads ended and still exiting (a statement runs until its next row). */
  readonly #exiting = new Set<Promise<number>>();
  #closed = false;

  constructor(path: string) {
    this.#path = path;
  }

  /** Starts the thread; rejects when it cannot open the store file. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const thread = this.#spawn();
      const first = (reply: ReadReply) => {
        thread.worker.off('message', first);
        if ('fatal' in reply) {
          this.#thread = undefined;
          this.#end(thread);
          reject(new Error(reply.fatal));
        } else resolve();
      };
      thread.worker.on('message', first);
      thread.worker.once('error', reject);
    });
  }

  #spawn(): Thread {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const data: ReadThreadData = { path: this.#path, control: port2, signal, chunkRows: CHUNK_ROWS, window: WINDOW };
    const worker = new Worker(SOURCE, { eval: true, workerData: data, transferList: [port2] });
    const thread = { worker, control: port1, signal: new Int32Array(signal) };
    worker.on('message', (reply: ReadReply) => {
      if (this.#thread === thread) this.#receive(reply);
    });
    // A thread that fails or exits on its own fails its statements; the next statement starts a new one.
    const lost = (error: Error) => {
      if (this.#thread !== thread) return;
      this.#thread = undefined;
      this.#end(thread);
      for (const p of this.#pending.values()) this.#fail(p, error);
      this.#pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the store's read thread exited (code ${code})`)));
    this.#thread = thread;
    return thread;
  }

  #end(thread: Thread): void {
    thread.control.close();
    const exit = thread.worker.terminate();
    this.#exiting.add(exit);
    void exit.finally(() => this.#exiting.delete(exit));
  }

  #receive(reply: ReadReply): void {
    if (!('id' in reply)) return;
    const p = this.#pending.get(reply.id);
    if (p === undefined) return;
    if ('begun' in reply) {
      p.begun = true;
      p.take();
      return;
    }
    if ('error' in reply) {
      this.#fail(p, new Error(`store read failed: ${reply.error}`));
      this.#pending.delete(reply.id);
      return;
    }
    p.chunks.push(reply.rows);
    if (reply.done) {
      p.done = true;
      this.#pending.delete(reply.id);
    }
    p.wake?.();
  }

  #fail(p: Pending, error: Error): void {
    p.error = error;
    p.done = true;
    p.take();
    p.wake?.();
  }

  #send(sql: string, params: ReadRequest['params']): Pending {
    if (this.#closed) throw new Error('the store is closed');
    const thread = this.#thread ?? this.#spawn();
    let take!: () => void;
    const taken = new Promise<void>((resolve) => (take = resolve));
    const p: Pending = { request: { id: this.#nextId++, sql, params }, chunks: [], begun: false, done: false, taken, take };
    if (this.#pending.size === 0) this.#snapshot = taken;
    this.#pending.set(p.request.id, p);
    thread.worker.postMessage(p.request);
    return p;
  }

  #control(message: ReadControl): void {
    const thread = this.#thread;
    if (thread === undefined) return;
    thread.control.postMessage(message);
    Atomics.add(thread.signal, 0, 1);
    Atomics.notify(thread.signal, 0);
  }

  /** Stops waiting for `p`: a queued or paused statement is told to stop, a running one ends its thread. */
  #abandon(p: Pending, timedOut: boolean): void {
    this.#pending.delete(p.request.id);
    p.take();
    if (!timedOut || !p.begun) {
      this.#control({ id: p.request.id, stop: true });
      return;
    }
    const thread = this.#thread;
    this.#thread = undefined;
    if (thread !== undefined) this.#end(thread);
    // The statements queued behind it go to a new thread.
    const queued = [...this.#pending.values()];
    if (queued.length === 0 || this.#closed) return;
    const next = this.#spawn();
    for (const q of queued) next.worker.postMessage(q.request);
  }

  /**
   * Runs one statement on the read thread (its own read transaction); its rows a chunk at a time. Throws
   * QueryTimeoutError once `timeoutMs` have passed (Infinity: no bound); leaving the loop early stops it.
   */
  async *rows(sql: string, params: ReadRequest['params'], timeoutMs: number): AsyncGenerator<Row[]> {
    const deadline = performance.now() + timeoutMs;
    const p = this.#send(sql, params);
    let timedOut = false;
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
        timedOut = true;
        p.wake?.();
      }, Math.max(1, timeoutMs))
      : undefined;
    let consumed = 0;
    try {
      for (;;) {
        if (p.chunks.length === 0 && !p.done && !timedOut) await new Promise<void>((resolve) => (p.wake = resolve));
        p.wake = undefined;
        if (timedOut || performance.now() > deadline) {
          timedOut = true;
          throw new QueryTimeoutError(timeoutMs);
        }
        const chunk = p.chunks.shift();
        if (chunk !== undefined) {
          if (!p.done) this.#control({ id: p.request.id, consumed: ++consumed });
          yield chunk;
          continue;
        }
        if (p.error !== undefined) throw p.error;
        if (p.done) return;
      }
    } finally {
      clearTimeout(timer);
      if (!p.done) this.#abandon(p, timedOut);
    }
  }

  /**
   * Resolves once the statement last sent to an idle thread has taken its snapshot. A write that waits for
   * it is not in that statement's rows: a query reads the store as it was when the query was made.
   */
  snapshotTaken(): Promise<void> {
    return this.#snapshot ?? Promise.resolve();
  }

  /** Resolves once every thread ended so far has exited (one in a statement exits when the step returns). */
  async exited(): Promise<void> {
    await Promise.all(this.#exiting);
  }

  /** Ends the thread (after its current statement's step); pending statements fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const thread = this.#thread;
    this.#thread = undefined;
    for (const p of this.#pending.values()) this.#fail(p, new Error('the store is closed'));
    this.#pending.clear();
    if (thread !== undefined) this.#end(thread);
    await this.exited();
  }
}
