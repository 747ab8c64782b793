// The extensions the primary of several workers runs itself (the health_check probes): their answer
// is about every worker, from the status each one sends (cluster-status.ts). A reload that changes their
// settings replaces them; the workers run the others (api_keys, which their receivers authenticate with).
import type { LoadedConfig } from '../../config/load.ts';
import type { Extension } from '../../pipeline/component.ts';
import { sameSettings, type ComponentEntry } from '../../pipeline/graph.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Registry } from '../../pipeline/registry.ts';
import type { ServiceStatus } from '../../pipeline/status.ts';
import { PRIMARY_EXTENSIONS } from './worker-view.ts';

export class PrimaryExtensions {
  readonly #running = new Map<string, { entry: ComponentEntry; extension: Extension }>();
  readonly #registry: Registry;
  readonly #logger: Logger;
  readonly #status: () => ServiceStatus;

  constructor(registry: Registry, logger: Logger, status: () => ServiceStatus) {
    this.#registry = registry;
    this.#logger = logger;
    this.#status = status;
  }

  /** Starts the primary's extensions of `config`; rejects with the first that cannot start. */
  async start(config: LoadedConfig): Promise<void> {
    // The primary imports these extensions' code only (Registry.load), not the pipelines' components.
    await this.#registry.load({ extensions: new Map(ours(config)) });
    for (const [id, entry] of ours(config)) {
      const extension = this.#registry.get('extension', entry.type)!.create(entry.config, {
        id, logger: this.#logger.child({ component: id }), status: this.#status,
      }) as Extension;
      await extension.start();
      this.#running.set(id, { entry, extension });
    }
  }

  /** Listening addresses by extension id, for the start-up line. */
  endpoints(): Record<string, string[]> {
    return Object.fromEntries([...this.#running].map(([id, { extension }]) => [id, extension.endpoints?.() ?? []]));
  }

  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.#running.values()].map(({ extension }) => extension.shutdown()));
    this.#running.clear();
  }

  /** After a reload: when an extension's settings changed (or one came or went), they are started again. */
  async reloaded(config: LoadedConfig): Promise<void> {
    const wanted = ours(config);
    const same = wanted.length === this.#running.size &&
      wanted.every(([id, entry]) => sameSettings(this.#running.get(id)?.entry, entry));
    if (same) return;
    await this.shutdown();
    await this.start(config).catch((error) => this.#logger.error(`reload: an extension cannot start: ${(error as Error).message}`));
  }
}

function ours(config: LoadedConfig) {
  return [...config.extensions ?? []].filter(([, entry]) => PRIMARY_EXTENSIONS.includes(entry.type));
}
