import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, startDaemon } from '../test/helpers/daemon.ts';
import { HEAP_FLAGS, heapFlagsChosen, reexecArgv } from './heap-flags.ts';

const base = {
  execPath: '/usr/bin/node',
  execArgv: ['--enable-source-maps'],
  argv: ['/usr/bin/node', '/app/dist/cmd/main.js', '--config', 'c.yaml'],
  env: {} as NodeJS.ProcessEnv,
  platform: 'linux' as NodeJS.Platform,
  execve: (() => {
    throw new Error('not called by reexecArgv');
  }) as NodeJS.Process['execve'],
};

describe('heap flags', () => {
  it('re-executes with the flags after the operator\'s node flags and before the script', () => {
    expect(reexecArgv(base)).toEqual(['/usr/bin/node', '--enable-source-maps', ...HEAP_FLAGS, '/app/dist/cmd/main.js', '--config', 'c.yaml']);
  });

  it('keeps a value the operator chose, on the command line or in NODE_OPTIONS (either spelling)', () => {
    expect(heapFlagsChosen(['--max-semi-space-size=64'], undefined)).toBe(true);
    expect(heapFlagsChosen([], '--max-old-space-size=300 --max_semi_space_size=1')).toBe(true);
    expect(heapFlagsChosen(['--max-old-space-size=300'], '--inspect')).toBe(false);
    expect(reexecArgv({ ...base, env: { NODE_OPTIONS: '--max-semi-space-size=8' } })).toBeUndefined();
    // After the re-execution the flag is on the command line: no loop.
    expect(reexecArgv({ ...base, execArgv: [...HEAP_FLAGS] })).toBeUndefined();
  });

  it('runs as it is where a process cannot be replaced', () => {
    expect(reexecArgv({ ...base, execve: undefined })).toBeUndefined();
    expect(reexecArgv({ ...base, platform: 'win32' })).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('the daemon runs under its own pid with the flags, and stops with 0 on SIGTERM', async () => {
    const daemon = await startDaemon('receivers:\n  http:\n    endpoint: 127.0.0.1:0\nexporters:\n  stdout: {}\nservice:\n  pipelines:\n    traces:\n      receivers: [http]\n      exporters: [stdout]\n');
    const cmdline = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toEqual(expect.arrayContaining([...HEAP_FLAGS, CLI]));
    expect(await daemon.stop()).toBe(0);
  });
});
