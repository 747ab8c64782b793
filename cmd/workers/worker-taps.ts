// A worker's end of `tracehop tap` with several workers: the primary asks each worker to watch a
// pipeline (`tap`), the worker subscribes to its own Taps with a sink that sends the lines to the
// primary over the IPC channel (`tapped`), and the primary writes them to the watcher's HTTP answer
// (cluster-taps.ts). Flow control runs end to end: the sink counts the bytes the primary has not yet
// acknowledged (`drained`, sent once the watcher's answer has taken them without going over its
// buffer), and past UNACKNOWLEDGED_HIGH_WATER_BYTES it reports itself full. The worker's Taps then
// stop encoding and count the spans they leave out (pipeline/tap.ts), exactly as in one process, so a
// watcher that is not reading costs neither the worker nor the primary any work per span.
import { EventEmitter } from 'node:events';
import type { Taps, TapSink } from '../../pipeline/tap.ts';
import type { ToPrimary, ToWorker } from './messages.ts';

/** Tap bytes a worker lets the primary hold unacknowledged before it stops writing (a socket's default high-water mark). */
const UNACKNOWLEDGED_HIGH_WATER_BYTES = 64 * 1024;

type Send = (message: ToPrimary) => void;

/** A TapSink whose lines go to the primary as `tapped` messages for one tap id. */
class IpcTapSink extends EventEmitter implements TapSink {
  readonly #tap: number;
  readonly #send: Send;
  /** Bytes sent to the primary that it has not acknowledged as written to the watcher. */
  #unacknowledged = 0;

  constructor(tap: number, send: Send) {
    super();
    this.#tap = tap;
    this.#send = send;
  }

  write(text: string): boolean {
    const bytes = Buffer.byteLength(text);
    this.#unacknowledged += bytes;
    this.#send({ tracehop: 'tapped', tap: this.#tap, text, bytes });
    return this.#unacknowledged < UNACKNOWLEDGED_HIGH_WATER_BYTES;
  }

  /** The primary has written `bytes` of this tap's lines to the watcher, whose answer has room again. */
  drained(bytes: number): void {
    this.#unacknowledged -= bytes;
    if (this.#unacknowledged <= 0) {
      this.#unacknowledged = 0;
      this.emit('drain');
    }
  }
}

/** The taps the primary has asked this worker for, by the primary's id. */
export class WorkerTaps {
  readonly #taps: Taps;
  readonly #send: Send;
  readonly #watching = new Map<number, { sink: IpcTapSink; unsubscribe: () => void }>();

  constructor(taps: Taps, send: Send) {
    this.#taps = taps;
    this.#send = send;
  }

  heard(message: Extract<ToWorker, { tracehop: 'tap' | 'untap' | 'drained' }>): void {
    const watching = this.#watching.get(message.tap);
    switch (message.tracehop) {
      case 'drained':
        watching?.sink.drained(message.bytes);
        return;
      case 'untap':
        watching?.unsubscribe();
        this.#watching.delete(message.tap);
        return;
      case 'tap': {
        if (watching !== undefined) return;
        const sink = new IpcTapSink(message.tap, this.#send);
        this.#watching.set(message.tap, { sink, unsubscribe: this.#taps.subscribe(message.pipeline, message.point, message.filter, sink) });
      }
    }
  }

  /** Stops every tap (the worker has stopped). */
  close(): void {
    for (const { unsubscribe } of this.#watching.values()) unsubscribe();
    this.#watching.clear();
  }
}
