// Intake pacing: on one thread, the receivers and the exporters share the CPU, and a request arriving
// is always ready to run while an exporter waits its turn. Left alone, a receiver under full load keeps
// accepting faster than a healthy exporter drains: the stream fills with decoded spans, the heap grows,
// every collection gets dearer, and the daemon ends up refusing with 503s (measured, docs/decisions/0370).
// So a new request waits, before its body is read, while an exporter that is working is more than a few
// deliveries behind. An exporter that fails or stops making progress is not waited for: the stream then
// buffers for it, up to its bound, as it always has.
import type { ExportRunner } from './runner.ts';

export interface PacingOptions {
  /** Deliveries (batches) an exporter may be behind before new requests wait. */
  deliveries: number;
  /** How long requests wait for one commit before the exporter counts as stalled. */
  stallMs: number;
}

export const DEFAULT_PACING: PacingOptions = { deliveries: 4, stallMs: 1000 };

export class IntakePacer {
  private readonly runners: readonly ExportRunner[];
  private readonly options: PacingOptions;

  constructor(runners: readonly ExportRunner[], options: PacingOptions = DEFAULT_PACING) {
    this.runners = runners;
    this.options = options;
  }

  /** Undefined when no exporter is behind; else resolves once none is (or the ones behind stalled). */
  wait(): Promise<void> | undefined {
    const behind = this.behind();
    return behind === undefined ? undefined : this.until(behind);
  }

  private behind(): ExportRunner | undefined {
    for (let i = 0; i < this.runners.length; i++) {
      if (this.runners[i].isBehind(this.options.deliveries)) return this.runners[i];
    }
    return undefined;
  }

  private async until(first: ExportRunner): Promise<void> {
    for (let runner: ExportRunner | undefined = first; runner !== undefined; runner = this.behind()) {
      await runner.progressed(this.options.stallMs);
    }
  }
}
