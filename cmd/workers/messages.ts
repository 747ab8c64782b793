// What the primary and its workers say to each other over the cluster's IPC channel. Every message
// carries `tracehop`, so node:cluster's own messages (which carry `cmd`) are told apart.
import type { Registry } from 'prom-client';
import type { ServiceStatus } from '../../pipeline/status.ts';
import type { TapFilter, TapPoint } from '../../pipeline/tap.ts';
import type { ReloadOutcome } from '../reload.ts';

/** A registry as `getMetricsAsJSON` gives it (structured-clone safe: names, types, values, labels). */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** Primary -> worker. */
export type ToWorker =
  | { tracehop: 'config'; text: string }
  | { tracehop: 'stop' }
  /** `text`: the config to load now (the file as the primary read it for this reload). */
  | { tracehop: 'reload'; id: number; trigger: string; text: string }
  | { tracehop: 'metrics'; id: number }
  /** Start sending the spans of `tap` (the primary's id for one `GET /tap`) that match, as `tapped`. */
  | { tracehop: 'tap'; tap: number; pipeline: string; point: TapPoint; filter: TapFilter }
  | { tracehop: 'untap'; tap: number }
  /** The watcher's answer has taken `bytes` (as `tapped` said them) of this worker's lines for `tap` and has room again. */
  | { tracehop: 'drained'; tap: number; bytes: number };

/** Worker -> primary. */
export type ToPrimary =
  /** A worker starting asks for the config the others run. */
  | { tracehop: 'config?' }
  | { tracehop: 'started'; endpoints: Record<string, string[]>; status: ServiceStatus }
  | { tracehop: 'status'; status: ServiceStatus }
  | { tracehop: 'reloaded'; id: number; outcome: ReloadOutcome }
  | { tracehop: 'metrics'; id: number; metrics: MetricsJson }
  /**
   * Span record lines (and `missed` lines) for the tap `tap`, as the single process writes them;
   * `bytes`: their UTF-8 length, which the primary acknowledges with `drained`.
   */
  | { tracehop: 'tapped'; tap: number; text: string; bytes: number };

/** A message of ours (either way): node:cluster's own carry no `tracehop`. */
function isOurs(message: unknown): boolean {
  return typeof message === 'object' && message !== null && typeof (message as { tracehop?: unknown }).tracehop === 'string';
}

export function isToWorker(message: unknown): message is ToWorker {
  return isOurs(message);
}

export function isToPrimary(message: unknown): message is ToPrimary {
  return isOurs(message);
}
