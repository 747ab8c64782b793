// A worker's side of the IPC channel to the primary: answers its questions (metrics, reload), sends
// its status for the health probes, and tells when the primary asks it to stop (or is gone).
import cluster from 'node:cluster';
import type { ServiceStatus } from '../../pipeline/status.ts';
import type { ReloadOutcome } from '../reload.ts';
import { isToWorker, type MetricsJson, type ToPrimary, type ToWorker } from './messages.ts';

/** How often a worker sends its status: the health probes' answer is at most this old. */
export const STATUS_INTERVAL_MS = 1000;

/**
 * The config text the primary runs (and the other workers with it), asked for before a worker loads
 * anything: a worker restarted after the file was edited, and not reloaded, runs what the others run.
 */
export function askPrimaryForConfig(): Promise<string> {
  return new Promise((resolve, reject) => {
    const gone = () => reject(new Error('the primary process is gone'));
    const heard = (message: unknown) => {
      if (!isToWorker(message) || (message as ToWorker).tracehop !== 'config') return;
      process.off('message', heard);
      process.off('disconnect', gone);
      resolve((message as ToWorker & { tracehop: 'config' }).text);
    };
    process.on('message', heard);
    process.once('disconnect', gone);
    process.send!({ tracehop: 'config?' } satisfies ToPrimary);
  });
}

export interface WorkerLinkOptions {
  status(): ServiceStatus;
  /** Loads `text` (the config the primary read for this reload) and applies it. */
  reload(trigger: string, text: string): Promise<ReloadOutcome>;
  metrics(): Promise<MetricsJson>;
}

export class WorkerLink {
  readonly #options: WorkerLinkOptions;
  readonly #stopped: Promise<'primary'>;
  #timer: NodeJS.Timeout | undefined;
  readonly #onMessage = (message: unknown) => void this.#answer(message);
  #stop!: () => void;

  constructor(options: WorkerLinkOptions) {
    this.#options = options;
    this.#stopped = new Promise((resolve) => { this.#stop = () => resolve('primary'); });
    process.on('message', this.#onMessage);
    // The primary is gone (killed): drain and stop rather than serve on unwatched. node:cluster would
    // end a worker at once on a disconnect it did not ask for, dropping what a memory stream holds and
    // cutting the requests in flight; marked as expected, the disconnect is this worker's to handle.
    if (cluster.worker) cluster.worker.exitedAfterDisconnect = true;
    process.once('disconnect', this.#stop);
  }

  /** Resolves when the primary asks this worker to stop, or its channel closes. */
  stopped(): Promise<'primary'> {
    return this.#stopped;
  }

  /** The worker listens: tells the primary, then sends its status every STATUS_INTERVAL_MS. */
  started(endpoints: Record<string, string[]>): void {
    this.#send({ tracehop: 'started', endpoints, status: this.#options.status() });
    this.#timer = setInterval(() => this.#send({ tracehop: 'status', status: this.#options.status() }), STATUS_INTERVAL_MS).unref();
  }

  close(): void {
    clearInterval(this.#timer);
    process.off('message', this.#onMessage);
    process.off('disconnect', this.#stop);
  }

  async #answer(message: unknown): Promise<void> {
    if (!isToWorker(message)) return;
    const asked = message as ToWorker;
    switch (asked.tracehop) {
      case 'stop':
        this.#stop();
        return;
      case 'reload':
        this.#send({ tracehop: 'reloaded', id: asked.id, outcome: await this.#options.reload(asked.trigger, asked.text) });
        return;
      case 'metrics':
        this.#send({ tracehop: 'metrics', id: asked.id, metrics: await this.#options.metrics() });
        return;
      case 'config':
        // Answered to askPrimaryForConfig, before this link existed.
        return;
    }
  }

  #send(message: ToPrimary): void {
    // After a disconnect there is no one to tell.
    if (process.connected) process.send!(message);
  }
}
