// The config `tracehop` runs with when no --config is given: the tracing API and OTLP on loopback, the
// health probes, the metrics (127.0.0.1:8888/metrics), spans to ./data/spans.jsonl and a summary line per
// batch on stdout. Each endpoint can be moved with an environment variable (DEFAULT_ENDPOINT_VARIABLES),
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
service:
  telemetry:
    metrics:
      address: \${env:TRACEHOP_METRICS_ENDPOINT:-127.0.0.1:8888}
  extensions: [health_check]
  pipelines:
    traces:
      receivers: [http, otlp]
      processors: [namespace, batch]
      exporters: [file, stdout]
`;
