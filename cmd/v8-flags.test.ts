import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, startDaemon } from '../test/helpers/daemon.ts';
import { flagsToAdd, reexecArgv, V8_FLAGS } from './v8-flags.ts';

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

const SEMI_SPACE = '--max-semi-space-size=16';
const NO_PRETENURING = '--no-allocation-site-pretenuring';

describe('V8 flags', () => {
  it('are the young-generation size and no allocation-site pretenuring', () => {
    expect(V8_FLAGS).toEqual([SEMI_SPACE, NO_PRETENURING]);
  });

  it('re-executes with the flags after the operator\'s node flags and before the script', () => {
    expect(reexecArgv(base)).toEqual(['/usr/bin/node', '--enable-source-maps', ...V8_FLAGS, '/app/dist/cmd/main.js', '--config', 'c.yaml']);
  });

  it('keeps each value the operator chose, on the command line or in NODE_OPTIONS (either spelling)', () => {
    expect(flagsToAdd(['--max-semi-space-size=64'], undefined)).toEqual([NO_PRETENURING]);
    expect(flagsToAdd([], '--max-old-space-size=300 --max_semi_space_size=1')).toEqual([NO_PRETENURING]);
    expect(flagsToAdd(['--max-old-space-size=300'], '--inspect')).toEqual([...V8_FLAGS]);
    // A boolean flag chosen either way is the operator's: --allocation-site-pretenuring keeps it on.
    expect(flagsToAdd(['--allocation-site-pretenuring'], undefined)).toEqual([SEMI_SPACE]);
    expect(flagsToAdd([], '--allocation_site_pretenuring --max-semi-space-size=8')).toEqual([]);
    // Names are compared whole: a flag whose name starts with the same words is another flag.
    expect(flagsToAdd(['--max-semi-space-size-extra=1'], undefined)).toEqual([SEMI_SPACE, NO_PRETENURING]);
    expect(reexecArgv({ ...base, env: { NODE_OPTIONS: `--max-semi-space-size=8 ${NO_PRETENURING}` } })).toBeUndefined();
    // After the re-execution every flag is on the command line: no loop.
    expect(reexecArgv({ ...base, execArgv: [...V8_FLAGS] })).toBeUndefined();
    expect(reexecArgv({ ...base, execArgv: ['--max-semi-space-size=0', '--allocation-site-pretenuring'] })).toBeUndefined();
  });

  it('runs as it is where a process cannot be replaced', () => {
    expect(reexecArgv({ ...base, execve: undefined })).toBeUndefined();
    expect(reexecArgv({ ...base, platform: 'win32' })).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('the daemon runs under its own pid with the flags, and stops with 0 on SIGTERM', async () => {
    const daemon = await startDaemon('receivers:\n  http:\n    endpoint: 127.0.0.1:0\nexporters:\n  stdout: {}\nservice:\n  pipelines:\n    traces:\n      receivers: [http]\n      exporters: [stdout]\n');
    const cmdline = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toEqual(expect.arrayContaining([...V8_FLAGS, CLI]));
    expect(await daemon.stop()).toBe(0);
  });
});
