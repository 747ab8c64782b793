import { describe, expect, it } from 'vitest';
import { loadConfigText, type LoadedConfig } from '../config/load.ts';
import { builtinRegistry } from './components.ts';
import { createLogger } from '../pipeline/log.ts';
import { ReloadFailed, Reloader, restartOnlyChanges } from './reload.ts';

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

describe('Reloader over a commit step of its own (the primary of several workers)', () => {
  it('runs no reload before started, maps a ReloadFailed to its result and problems, and counts each', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', write: (line) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    const counted: string[] = [];
    const committed: string[] = [];
    let fail: ReloadFailed | undefined;
    const reloader = new Reloader<{ config: LoadedConfig; text: string }>({ config: config(''), text: 'first' }, {
      load: () => ({ config: config(''), text: `text ${committed.length + 1}` }),
      commit: async (loaded) => {
        if (fail) throw fail;
        committed.push(loaded.text);
        return loaded;
      },
      logger,
      counted: (result) => counted.push(result),
    });
    const early = reloader.reload('SIGHUP');
    let settled = false;
    void early.then(() => { settled = true; });
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    expect(settled).toBe(false);
    reloader.started();
    expect(await early).toEqual({ result: 'applied', generation: 2 });
    expect(reloader.running.text).toBe('text 1');
    fail = new ReloadFailed('failed', ['worker 1: cannot open'], { applied_by_workers: [0] });
    expect(await reloader.reload('POST /-/reload')).toEqual({ result: 'failed', generation: 2, problems: ['worker 1: cannot open'] });
    expect(reloader.running.text).toBe('text 1');
    expect(lines.filter((l) => l.level !== 'warn').map((l) => [l.msg, l.applied_by_workers])).toEqual([
      ['config reloaded', undefined],
      ['config reload failed: the running config stays', [0]],
    ]);
    await reloader.close();
    expect((await reloader.reload('SIGHUP')).problems).toEqual(['tracehop is shutting down']);
    expect(counted).toEqual(['applied', 'failed']);
  });
});
