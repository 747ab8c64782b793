import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../config/load.ts';
import { builtinRegistry } from './components.ts';
import { restartOnlyChanges } from './reload.ts';

const config = (service: string) => loadConfigText(`receivers:
  otlp: {protocols: {http: {endpoint: 127.0.0.1:0}}}
exporters:
  stdout: {}
service:
${service}  pipelines:
    traces: {receivers: [otlp], exporters: [stdout]}
`, 'c.yaml', builtinRegistry(), {});

describe('restartOnlyChanges', () => {
  it('refuses a reload that changes a memory setting, naming the key', () => {
    const running = config('');
    expect(restartOnlyChanges(running, config(''))).toEqual([]);
    expect(restartOnlyChanges(running, config('  memory_release_after_idle: 5m\n'))).toEqual([
      'service.memory_release_after_idle: changed, and takes effect only when tracehop restarts',
    ]);
    expect(restartOnlyChanges(running, config('  memory_limit_mib: 256\n'))).toEqual([
      'service.memory_limit_mib: changed, and takes effect only when tracehop restarts',
      'service.memory_spike_limit_mib: changed, and takes effect only when tracehop restarts',
    ]);
  });
});
