// A worker's side of the IPC channel to the primary: answers its questions (metrics, reload), sends
// its status for the health probes, and tells when the primary asks it to stop (or is gone).
import cluster from 'node:cluster';
import type { ServiceStatus } from '../../pipeline/status.ts';
import type { Taps } from '../../pipeline/tap.ts';
import type { ReloadOutcome } from '../reload.ts';
import { isToWorker, type MetricsJson, type ToPrimary, type ToWorker } from './messages.ts';
import { WorkerTaps } from './worker-taps.ts';

/** How often a worker sends its status: the health probes' answer is at most this old. */
export const STATUS_INTERVAL_MS = 1000;

export interface WorkerLinkOptions {
  status(): ServiceStatus;
  /** Loads `text` (the config the primary read for this reload) and applies it. */
  reload(trigger: string, text: string): Promise<ReloadOutcome>;
  metrics(): Promise<MetricsJson>;
  /** The worker's taps, which the primary's `GET /tap` watches through this link. */
  taps: Taps;
}

/**
 * Listens to the primary from the worker's first moment: a `stop` or `reload` the primary sends while the
 * worker loads its config and builds its graph is held, not dropped (a dropped reload would never be
 * answered, and a dropped stop would leave a worker serving that the primary no longer counts). A held
 * `stop` stops the worker once it has started; the questions are answered once `attach` gives the means
 * (a reload is then applied after the start, as the worker's Reloader runs none before).
 */
export class WorkerLink {
  #options: WorkerLinkOptions | undefined;
  #taps: WorkerTaps | undefined;
  readonly #stopped: Promise<'primary'>;
  #timer: NodeJS.Timeout | undefined;
  /** Questions heard before `attach`, answered in order once it is called. */
  #held: ToWorker[] = [];
  #config: ((text: string) => void) | undefined;
  readonly #onMessage = (message: unknown) => this.#heard(message);
  #stop!: () => void;

  constructor() {
    this.#stopped = new Promise((resolve) => { this.#stop = () => resolve('primary'); });
    process.on('message', this.#onMessage);
    // The primary is gone (killed): drain and stop rather than serve on unwatched. node:cluster would
    // end a worker at once on a disconnect it did not ask for, dropping what a memory stream holds and
    // cutting the requests in flight; marked as expected, the disconnect is this worker's to handle.
    if (cluster.worker) cluster.worker.exitedAfterDisconnect = true;
    process.once('disconnect', this.#stop);
  }

  /**
   * The config text the primary runs (and the other workers with it), asked for before a worker loads
   * anything: a worker restarted after the file was edited, and not reloaded, runs what the others run.
   */
  config(): Promise<string> {
    return new Promise((resolve, reject) => {
      const gone = () => reject(new Error('the primary process is gone'));
      this.#config = (text) => {
        this.#config = undefined;
        process.off('disconnect', gone);
        resolve(text);
      };
      process.once('disconnect', gone);
      this.#send({ tracehop: 'config?' });
    });
  }

  /** The worker can answer now (its graph is built): the questions held until now are answered. */
  attach(options: WorkerLinkOptions): void {
    this.#options = options;
    this.#taps = new WorkerTaps(options.taps, (message) => this.#send(message));
    const held = this.#held;
    this.#held = [];
    for (const asked of held) void this.#answer(asked, options);
  }

  /** Resolves when the primary asks this worker to stop, or its channel closes. */
  stopped(): Promise<'primary'> {
    return this.#stopped;
  }

  /** The worker listens: tells the primary, then sends its status every STATUS_INTERVAL_MS. */
  started(endpoints: Record<string, string[]>): void {
    const { status } = this.#options!;
    this.#send({ tracehop: 'started', endpoints, status: status() });
    this.#timer = setInterval(() => this.#send({ tracehop: 'status', status: status() }), STATUS_INTERVAL_MS).unref();
  }

  /**
   * The worker is stopping: no more status. It still hears the primary, so a tap goes on through the
   * drain, as `GET /tap` does in one process; `close` once the pipeline has stopped.
   */
  stopping(): void {
    clearInterval(this.#timer);
    process.off('disconnect', this.#stop);
  }

  /** The worker has stopped: its taps end and it no longer listens. */
  close(): void {
    this.stopping();
    this.#taps?.close();
    process.off('message', this.#onMessage);
  }

  #heard(message: unknown): void {
    if (!isToWorker(message)) return;
    switch (message.tracehop) {
      case 'stop':
        // Acted on once the worker has started (a signal during start-up is too).
        this.#stop();
        return;
      case 'config':
        this.#config?.(message.text);
        return;
      default:
        if (this.#options === undefined) this.#held.push(message);
        else void this.#answer(message, this.#options);
    }
  }

  async #answer(asked: ToWorker, options: WorkerLinkOptions): Promise<void> {
    switch (asked.tracehop) {
      case 'reload':
        this.#send({ tracehop: 'reloaded', id: asked.id, outcome: await options.reload(asked.trigger, asked.text) });
        return;
      case 'metrics':
        this.#send({ tracehop: 'metrics', id: asked.id, metrics: await options.metrics() });
        return;
      case 'tap':
      case 'untap':
      case 'drained':
        this.#taps!.heard(asked);
        return;
    }
  }

  #send(message: ToPrimary): void {
    // After a disconnect there is no one to tell.
    if (process.connected) process.send!(message);
  }
}
