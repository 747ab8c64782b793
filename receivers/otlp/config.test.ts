import { describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { resolveProtocols, schema, type OtlpReceiverConfig } from './config.ts';

function load(config: unknown): { ok: boolean; value: unknown } {
  const copy = structuredClone(config);
  return { ok: validator(schema)(copy), value: copy };
}

describe('otlp receiver config', () => {
  it('a protocol is enabled by its key; `{}` and null (YAML `http:`) get the defaults', () => {
    for (const http of [{}, null]) {
      const { ok, value } = load({ protocols: { http } });
      expect(ok).toBe(true);
      expect(resolveProtocols(value as OtlpReceiverConfig)).toEqual({
        http: { endpoint: '127.0.0.1:4318', max_request_body_size: 20_971_520, max_spans_per_request: 100_000, max_values_per_request: 500_000, cors: { allowed_origins: [], allowed_headers: [], max_age: 0 }, read_header_timeout: 10_000, read_timeout: 60_000 },
        grpc: undefined,
      });
    }
    const both = load({ protocols: { http: { endpoint: '0.0.0.0:9999' }, grpc: {} } });
    expect(resolveProtocols(both.value as OtlpReceiverConfig)).toEqual({
      http: { endpoint: '0.0.0.0:9999', max_request_body_size: 20_971_520, max_spans_per_request: 100_000, max_values_per_request: 500_000, cors: { allowed_origins: [], allowed_headers: [], max_age: 0 }, read_header_timeout: 10_000, read_timeout: 60_000 },
      grpc: { endpoint: '127.0.0.1:4317', max_recv_msg_size_mib: 20, max_spans_per_request: 100_000, max_values_per_request: 500_000, read_timeout: 60_000, keepalive: { server_parameters: { max_connection_idle: 300_000 } } },
    });
  });

  it('unknown keys, no protocol, and bad endpoints are errors', () => {
    expect(load({ protocols: { http: { port: 1 } } }).ok).toBe(false);
    expect(load({ protocols: { thrift: {} } }).ok).toBe(false);
    expect(load({ protocols: {} }).ok).toBe(false);
    expect(load({}).ok).toBe(false);
    expect(load({ protocols: { grpc: { endpoint: 'nohost' } } }).ok).toBe(false);
  });
});
