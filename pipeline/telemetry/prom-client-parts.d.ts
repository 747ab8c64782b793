// prom-client's own modules, which its entry point re-exports (the package ships types for the entry
// point only): see prom-client.ts.
declare module 'prom-client/lib/registry.js' {
  import type { Registry } from 'prom-client';
  const registry: typeof Registry;
  export default registry;
}
declare module 'prom-client/lib/counter.js' {
  import type { Counter } from 'prom-client';
  const counter: typeof Counter;
  export default counter;
}
declare module 'prom-client/lib/gauge.js' {
  import type { Gauge } from 'prom-client';
  const gauge: typeof Gauge;
  export default gauge;
}
declare module 'prom-client/lib/histogram.js' {
  import type { Histogram } from 'prom-client';
  const histogram: typeof Histogram;
  export default histogram;
}
declare module 'prom-client/lib/cluster.js' {
  import type { AggregatorRegistry } from 'prom-client';
  const cluster: typeof AggregatorRegistry;
  export default cluster;
}
declare module 'prom-client/lib/defaultMetrics.js' {
  import type { collectDefaultMetrics } from 'prom-client';
  const defaultMetrics: typeof collectDefaultMetrics;
  export default defaultMetrics;
}
