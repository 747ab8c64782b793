// A worker's end of `tracehop tap` with several workers: the primary asks each worker to watch a
// pipeline (`tap`), the worker subscribes to its own Taps with a sink that sends the lines to the
// primary over the IPC channel (`tapped`), and the primary merges the workers' lines into the one
// HTTP answer (cluster-taps.ts). A watcher that is not reading costs the worker what it costs one
// process: once the lines sent and not yet taken by the channel pass IPC_HIGH_WATER_BYTES, Taps stops
// writing and counts what it leaves out (pipeline/tap.ts) until the channel has caught up.
import { EventEmitter } from 'node:events';
import type { Taps, TapSink } from '../../pipeline/tap.ts';
import type { ToPrimary, ToWorker } from './messages.ts';

/** Unsent tap text a worker lets queue on its channel before it stops writing (a socket's default high-water mark). */
export const IPC_HIGH_WATER_BYTES = 64 * 1024;

type Send = (message: ToPrimary, sent: () => void) => void;

/** A TapSink whose lines go to the primary as `tapped` messages for one tap id. */
export class IpcTapSink extends EventEmitter implements TapSink {
  readonly #tap: number;
  readonly #send: Send;
  /** Bytes handed to the channel whose send has not completed. */
  #unsent = 0;

  constructor(tap: number, send: Send) {
    super();
    this.#tap = tap;
    this.#send = send;
  }

  write(text: string): boolean {
    const bytes = text.length;
    this.#unsent += bytes;
    this.#send({ tracehop: 'tapped', tap: this.#tap, text }, () => {
      this.#unsent -= bytes;
      if (this.#unsent === 0) this.emit('drain');
    });
    return this.#unsent < IPC_HIGH_WATER_BYTES;
  }
}

/** The taps the primary has asked this worker for, by the primary's id. */
export class WorkerTaps {
  readonly #taps: Taps;
  readonly #send: Send;
  readonly #watching = new Map<number, () => void>();

  constructor(taps: Taps, send: Send) {
    this.#taps = taps;
    this.#send = send;
  }

  heard(message: Extract<ToWorker, { tracehop: 'tap' | 'untap' }>): void {
    if (message.tracehop === 'untap') {
      this.#watching.get(message.tap)?.();
      this.#watching.delete(message.tap);
      return;
    }
    if (this.#watching.has(message.tap)) return;
    const sink = new IpcTapSink(message.tap, this.#send);
    this.#watching.set(message.tap, this.#taps.subscribe(message.pipeline, message.point, message.filter, sink));
  }

  /** Stops every tap (the worker stops). */
  close(): void {
    for (const unsubscribe of this.#watching.values()) unsubscribe();
    this.#watching.clear();
  }
}
