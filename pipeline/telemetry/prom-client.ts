// The parts of prom-client the daemon uses, each from its own module rather than from the package's
// entry point. The entry point also loads the push gateway, and with it `node:https` and `node:tls`: the
// daemon never pushes, and those modules are about 3 MiB resident in every process that serves metrics
// (measured: idle 85.0-86.0 -> 81.5-82.3 MiB; docs/operating.md "Memory and V8 flags"). Static imports,
// so that the single executable's bundler (sea/build.ts) still takes them in. The types are the
// package's own (prom-client-parts.d.ts): these modules are what its entry point re-exports. The paths
// resolve because prom-client (15.x) has no `exports` map; a release that adds one fails these imports
// at build and test time, loudly.
import type * as PromClient from 'prom-client';
import registry from 'prom-client/lib/registry.js';
import counter from 'prom-client/lib/counter.js';
import gauge from 'prom-client/lib/gauge.js';
import histogram from 'prom-client/lib/histogram.js';
import cluster from 'prom-client/lib/cluster.js';
import defaultMetrics from 'prom-client/lib/defaultMetrics.js';

export const Registry = registry;
export const Counter = counter;
export const Gauge = gauge;
export const Histogram = histogram;
export const AggregatorRegistry = cluster;
export const collectDefaultMetrics = defaultMetrics;

// The instance types under the same names, as the package exports them.
export type Registry = PromClient.Registry;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
