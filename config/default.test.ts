import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../cmd/components.ts';
import { DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, DEFAULT_ENDPOINT_VARIABLES } from './default.ts';
import { loadConfigText } from './load.ts';

/** The value at a dotted key of the loaded default (`receivers.otlp.protocols.http.endpoint`). */
function endpointAt(env: NodeJS.ProcessEnv, key: string): unknown {
  const config = loadConfigText(DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, builtinRegistry(), env);
  if (key === 'service.telemetry.metrics.address') return config.service.telemetry.metrics.address;
  const [section, id, ...rest] = key.split('.');
  const entries = section === 'extensions' ? config.extensions! : config[section as 'receivers'];
  let value: unknown = entries.get(id)!.config;
  for (const part of rest) value = (value as Record<string, unknown>)[part];
  return value;
}

describe('the built-in default', () => {
  it('listens on loopback, with the health probes enabled', () => {
    const config = loadConfigText(DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, builtinRegistry(), {});
    expect(config.warnings).toEqual([]);
    expect([...config.extensions!.keys()]).toEqual(['health_check']);
    for (const [, { key, default: value }] of Object.entries(DEFAULT_ENDPOINT_VARIABLES)) expect(endpointAt({}, key)).toBe(value);
  });

  it('keeps spans in a bounded store under ./data that the tracing API reads from', () => {
    const config = loadConfigText(DEFAULT_CONFIG, DEFAULT_CONFIG_NAME, builtinRegistry(), {});
    const store = config.exporters.get('store')!;
    expect(store.type).toBe('store');
    expect(store.config).toMatchObject({ path: './data/store.db', max_bytes: 268_435_456, max_age: 168 * 3_600_000 });
    expect(config.pipelines.map((p) => [p.id, p.exporters])).toEqual([['traces', ['file', 'stdout', 'store']]]);
    expect((config.receivers.get('http')!.config as { read: { store?: string } }).read.store).toBe('store');
  });

  it('takes each endpoint from its environment variable when set', () => {
    let port = 20000;
    for (const [name, { key }] of Object.entries(DEFAULT_ENDPOINT_VARIABLES)) {
      const endpoint = `0.0.0.0:${port++}`;
      expect({ name, value: endpointAt({ [name]: endpoint }, key) }).toEqual({ name, value: endpoint });
    }
  });
});
