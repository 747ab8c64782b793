import { describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { schema as exporterSchema } from './config.ts';

describe('otlp exporter config', () => {
  it('fills the otlp.md defaults and requires an endpoint', () => {
    const config: Record<string, unknown> = { endpoint: 'http://collector:4318' };
    expect(validator(exporterSchema)(config)).toBe(true);
    expect(config).toMatchObject({
      encoding: 'proto', compression: 'gzip', headers: {}, max_request_spans: 1000, timeout: 10_000,
      retry: { initial_interval: 1000, max_interval: 30_000, multiplier: 1.5 },
    });
    expect(validator(exporterSchema)({})).toBe(false);
    expect(validator(exporterSchema)({ endpoint: 'http://x', encoding: 'thrift' })).toBe(false);
  });
});
