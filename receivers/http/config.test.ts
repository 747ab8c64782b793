import { describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { schema } from './config.ts';
import { httpDefaults } from '../../test/helpers/http-receiver-config.ts';
import { factory } from './factory.ts';

describe('receivers.http config (ingest-api.md §9)', () => {
  it('fills in the documented defaults', () => {
    const config: Record<string, unknown> = {};
    expect(validator(schema)(config)).toBe(true);
    expect(config).toEqual(httpDefaults);
  });

  it('loads retry_after as milliseconds and rejects unknown keys', () => {
    const config: Record<string, unknown> = { retry_after: '2s', api_keys: ['k'] };
    expect(validator(schema)(config)).toBe(true);
    expect(config.retry_after).toBe(2000);
    expect(validator(schema)({ max_body: 1 })).toBe(false);
    expect(validator(schema)({ endpoint: 'nope' })).toBe(false);
  });

  it('is registered as the `http` receiver', () => {
    expect(factory).toMatchObject({ type: 'http', kind: 'receiver', schema });
  });
});
