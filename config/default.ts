// The config `tracehop` runs with when no --config is given: the tracing API and OTLP on loopback,
// spans to ./data/spans.jsonl and a summary line per batch on stdout.
export const DEFAULT_CONFIG_NAME = '<built-in default>';

export const DEFAULT_CONFIG = `
receivers:
  http:
    endpoint: 127.0.0.1:4319
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:4318
      grpc:
        endpoint: 127.0.0.1:4317

processors:
  batch: {}

exporters:
  file:
    path: ./data/spans.jsonl
  stdout:
    verbosity: basic

service:
  pipelines:
    traces:
      receivers: [http, otlp]
      processors: [namespace, batch]
      exporters: [file, stdout]
`;
