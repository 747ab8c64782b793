// An exporter whose implementation (and the client library behind it) is loaded only when it starts, so a
// daemon pays the memory of a library only when its config uses it: importing the Kafka client alone
// costs about 55 MiB of RSS.
import type { Exporter } from './component.ts';

export function lazyExporter(load: () => Promise<Exporter>): Exporter {
  let loaded: Exporter | undefined;
  const notStarted = () => Promise.reject(new Error('exporter used before start()'));
  return {
    async start() {
      loaded = await load();
      await loaded.start();
    },
    export: (spans) => (loaded ? loaded.export(spans) : notStarted()),
    flush: () => loaded?.flush?.() ?? Promise.resolve(),
    shutdown: () => loaded?.shutdown() ?? Promise.resolve(),
  };
}
