// The config `tracehop` runs with when no --config is given: the tracing API and OTLP on loopback, the
// health probes, the metrics (127.0.0.1:8888/metrics), spans to ./data/spans.jsonl, a summary line per
// batch on stdout, and a trace store (./data/store.db) that the tracing API serves its read routes from, so
// a trace just written can be read back with no backend. The store is bounded for a laptop: 256 MiB and a
// week, the oldest traces pruned first. Each endpoint can be moved with an environment variable (DEFAULT_ENDPOINT_VARIABLES),
// so a container or a second instance needs no config file.
export const DEFAULT_CONFIG_NAME = '<built-in default>';

/** The environment variables the built-in default reads, with the endpoint each one replaces. */
export const DEFAULT_ENDPOINT_VARIABLES = {
  TRACEHOP_HTTP_ENDPOINT: { key: 'receivers.http.endpoint', default: '127.0.0.1:4319' },
  TRACEHOP_OTLP_HTTP_ENDPOINT: { key: 'receivers.otlp.protocols.http.endpoint', default: '127.0.0.1:4318' },
  TRACEHOP_OTLP_GRPC_ENDPOINT: { key: 'receivers.otlp.protocols.grpc.endpoint', default: '127.0.0.1:4317' },
  TRACEHOP_HEALTH_ENDPOINT: { key: 'extensions.health_check.endpoint', default: '127.0.0.1:13133' },
  TRACEHOP_METRICS_ENDPOINT: { key: 'service.telemetry.metrics.address', default: '127.0.0.1:8888' },
} as const;

export const DEFAULT_CONFIG = `# tracehop's built-in default (tracehop print-default-config).
extensions:
  health_check:
    endpoint: \${env:TRACEHOP_HEALTH_ENDPOINT:-127.0.0.1:13133}
receivers:
  http:
    endpoint: \${env:TRACEHOP_HTTP_ENDPOINT:-127.0.0.1:4319}
  otlp:
    protocols:
      http:
        endpoint: \${env:TRACEHOP_OTLP_HTTP_ENDPOINT:-127.0.0.1:4318}
      grpc:
        endpoint: \${env:TRACEHOP_OTLP_GRPC_ENDPOINT:-127.0.0.1:4317}
processors:
  batch: {}
exporters:
  file:
    path: ./data/spans.jsonl
  stdout:
    verbosity: basic
  store:
    path: ./data/store.db
    max_bytes: 268435456
    max_age: 168h
service:
  telemetry:
    metrics:
      address: \${env:TRACEHOP_METRICS_ENDPOINT:-127.0.0.1:8888}
  extensions: [health_check]
  pipelines:
    traces:
      receivers: [http, otlp]
      processors: [namespace, batch]
      exporters: [file, stdout, store]
`;
