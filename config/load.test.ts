import { describe, expect, it } from 'vitest';
import { authSchema } from '../pipeline/auth.ts';
import { Registry } from '../pipeline/registry.ts';
import { duration, endpoint, object, oneOf } from '../pipeline/schema.ts';
import { factory as batch } from '../processors/batch/factory.ts';
import { loadConfigText } from './load.ts';
import { ConfigError, formatProblem } from './problem.ts';

// Stand-in factories: the loader only reads type, kind, schema and check.
const fake = (kind: 'receiver' | 'processor' | 'exporter' | 'extension', type: string, schema = object({})) =>
  ({ type, kind, schema, create: () => ({}) });

function registry(): Registry {
  return new Registry()
    .register(fake('receiver', 'http', object({ endpoint: endpoint('127.0.0.1:4319'), retry_after: duration('1s'), auth: authSchema })))
    .register(fake('processor', 'namespace', object({ semconv: oneOf(['otlp', 'all', 'none'], 'otlp') })))
    .register(batch)
    .register(fake('exporter', 'file', object({ path: { type: 'string' } }, ['path'])));
}

const minimal = `receivers:
  http: {}
exporters:
  file:
    path: out.jsonl
service:
  pipelines:
    traces:
      receivers: [http]
      exporters: [file]
`;

function problems(text: string, env: NodeJS.ProcessEnv = {}, sets: string[] = []): string[] {
  try {
    loadConfigText(text, 'c.yaml', registry(), env, sets);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  return [];
}

describe('config loader', () => {
  it('fills defaults, converts durations to milliseconds and applies the storage defaults', () => {
    const c = loadConfigText(minimal, 'c.yaml', registry(), {});
    expect(c.receivers.get('http')!.config).toEqual({ endpoint: '127.0.0.1:4319', retry_after: 1000 });
    expect(c.service.shutdown_timeout).toBe(10_000);
    expect(c.service.memory_limit_mib).toBe(512);
    expect(c.storage).toMatchObject({ type: 'disk', max_bytes: 1073741824, directory: './data', fsync: 'always' });
    expect(c.pipelines).toEqual([{ id: 'traces', receivers: ['http'], processors: [], exporters: ['file'] }]);
  });

  it('the soft memory limit: memory_spike_limit_mib defaults to a fifth of memory_limit_mib and must leave room below it', () => {
    expect(loadConfigText(minimal, 'c.yaml', registry(), {}).service.memory_spike_limit_mib).toBe(102);
    const limits = (lines: string) => minimal.replace('service:\n', `service:\n${lines}`);
    const set = loadConfigText(limits('  memory_limit_mib: 1000\n  memory_spike_limit_mib: 300\n'), 'c.yaml', registry(), {});
    expect(set.service).toMatchObject({ memory_limit_mib: 1000, memory_spike_limit_mib: 300 });
    expect(loadConfigText(limits('  memory_limit_mib: 1000\n'), 'c.yaml', registry(), {}).service.memory_spike_limit_mib).toBe(200);
    expect(problems(limits('  memory_limit_mib: 256\n  memory_spike_limit_mib: 256\n'))).toEqual([
      'c.yaml:8:27 service.memory_spike_limit_mib: must be less than service.memory_limit_mib (256): the soft limit is memory_limit_mib - memory_spike_limit_mib',
    ]);
    expect(problems(limits('  memory_spike_limit_mib: -1\n'))).toHaveLength(1);
  });

  it('service.memory_release_after_idle: a duration, 30s by default, 0 turns the idle release off', () => {
    expect(loadConfigText(minimal, 'c.yaml', registry(), {}).service.memory_release_after_idle).toBe(30_000);
    const idle = (value: string) => minimal.replace('service:\n', `service:\n  memory_release_after_idle: ${value}\n`);
    expect(loadConfigText(idle('2m'), 'c.yaml', registry(), {}).service.memory_release_after_idle).toBe(120_000);
    expect(loadConfigText(idle('0'), 'c.yaml', registry(), {}).service.memory_release_after_idle).toBe(0);
    expect(problems(idle('soon'))).toEqual([
      'c.yaml:7:30 service.memory_release_after_idle: must be a duration such as 200ms, 5s or 1m (got "soon")',
    ]);
  });

  it('reads `storage: memory` as short for {type: memory} with the memory bound', () => {
    const c = loadConfigText(minimal + 'storage: memory\n', 'c.yaml', registry(), {});
    expect(c.storage).toMatchObject({ type: 'memory', max_bytes: 134217728 });
  });

  it('expands ${env:NAME}, ${NAME}, ${env:NAME:-default} and $$', () => {
    const text = minimal
      .replace('http: {}', 'http:\n    endpoint: ${env:HOST}:${PORT}\n    retry_after: ${env:RA:-2s}')
      .replace('path: out.jsonl', 'path: cost$$5-${env:NAME:-x}.jsonl');
    const c = loadConfigText(text, 'c.yaml', registry(), { HOST: '0.0.0.0', PORT: '9000' });
    expect(c.receivers.get('http')!.config).toEqual({ endpoint: '0.0.0.0:9000', retry_after: 2000 });
    expect(c.exporters.get('file')!.config.path).toBe('cost$5-x.jsonl');
  });

  it('warns about an unset variable and uses the empty string, as the Collector does', () => {
    const text = minimal.replace('path: out.jsonl', 'path: out${env:MISSING}.jsonl');
    const c = loadConfigText(text, 'c.yaml', registry(), {});
    expect(c.exporters.get('file')!.config.path).toBe('out.jsonl');
    expect(c.warnings).toEqual(['environment variable MISSING is not set; using ""']);
  });

  it('reports unknown keys with file:line:col at the key', () => {
    const text = minimal.replace('http: {}', 'http:\n    endpont: 1.2.3.4:5');
    expect(problems(text)).toEqual(['c.yaml:3:5 receivers.http.endpont: unknown key']);
  });

  it('reports every problem, not only the first', () => {
    const text = `receivers:
  http:
    retry_after: soon
  grpc: {}
exporters:
  file: {}
service:
  pipelines:
    traces:
      receivers: [http, otlp]
      processors: [batch, namespace]
      exporters: [file]
connectors: {}
`;
    expect(problems(text)).toEqual([
      'c.yaml:13:1 connectors: unknown key',
      'c.yaml:3:18 receivers.http.retry_after: must be a duration such as 200ms, 5s or 1m (got "soon")',
      'c.yaml:4:3 receivers.grpc: unknown receiver type "grpc" (known: http)',
      'c.yaml:6:3 exporters.file.path: is required',
      'c.yaml:10:25 service.pipelines.traces.receivers.1: "otlp" is not defined under receivers',
      'c.yaml:11:20 service.pipelines.traces.processors.0: "batch" is not defined under processors',
      'c.yaml:11:27 service.pipelines.traces.processors.1: "namespace" runs before the acknowledgement and must come before every asynchronous processor',
    ]);
  });

  it('rejects a batch cap smaller than the trigger', () => {
    const text = minimal.replace('exporters:\n', 'processors:\n  batch:\n    send_batch_size: 10\n    send_batch_max_size: 5\nexporters:\n');
    expect(problems(text)).toEqual(['c.yaml:6:26 processors.batch.send_batch_max_size: must be 0 or >= send_batch_size']);
  });

  it('accepts type/name ids and several pipelines sharing a receiver and an exporter', () => {
    const text = `receivers:
  http/public: {}
processors:
  batch/fast:
    timeout: 0
exporters:
  file/a: {path: a.jsonl}
  file/b: {path: b.jsonl}
service:
  pipelines:
    traces/a:
      receivers: [http/public]
      processors: [validate, namespace, batch/fast]
      exporters: [file/a, file/b]
    traces/b:
      receivers: [http/public]
      processors: [flatten, validate, namespace]
      exporters: [file/b]
`;
    const c = loadConfigText(text, 'c.yaml', registry(), {});
    expect(c.pipelines.map((p) => p.id)).toEqual(['traces/a', 'traces/b']);
    // flatten and validate, once processors, are part of every receiver: listed, they change nothing.
    expect(c.pipelines.map((p) => p.processors)).toEqual([['namespace', 'batch/fast'], ['namespace']]);
    expect(c.processors.get('batch/fast')!.config).toEqual({ send_batch_size: 1024, timeout: 0, send_batch_max_size: 0, send_batch_size_mib: 3 });
  });

  it('enables the extensions service.extensions lists, and checks every auth reference', () => {
    const reg = registry().register(fake('extension', 'api_keys'));
    const text = `extensions:
  api_keys: {}
  api_keys/spare: {}
receivers:
  http: {auth: {authenticator: api_keys}}
exporters:
  file: {path: out.jsonl}
service:
  extensions: [api_keys]
  pipelines:
    traces:
      receivers: [http]
      exporters: [file]
`;
    expect([...loadConfigText(text, 'c.yaml', reg, {}).extensions!.keys()]).toEqual(['api_keys']);
    const wrong = text.replace('{authenticator: api_keys}', '{authenticator: api_keys/spare}').replace('[api_keys]', '[api_keys, nope]');
    let found: string[] = [];
    try {
      loadConfigText(wrong, 'c.yaml', reg, {});
    } catch (err) {
      found = (err as ConfigError).problems.map(formatProblem);
    }
    expect(found).toEqual([
      'c.yaml:9:26 service.extensions.1: "nope" is not defined under extensions',
      'c.yaml:5:32 receivers.http.auth.authenticator: "api_keys/spare" is not an enabled extension (define it under extensions and list it in service.extensions)',
    ]);
  });

  it('accepts flatten and validate (now part of every receiver) only without settings', () => {
    const listed = minimal.replace('      exporters: [file]', '      processors: [batch, validate, flatten]\n      exporters: [file]')
      .replace('exporters:\n  file:', 'processors:\n  validate: {}\n  batch: {}\nexporters:\n  file:');
    expect(problems(listed)).toEqual([]);
    expect(loadConfigText(listed, 'c.yaml', registry(), {}).pipelines[0].processors).toEqual(['batch']);
    const withSettings = listed.replace('  validate: {}', '  validate: {strict: true}');
    expect(problems(withSettings).join('\n')).toMatch(/processors\.validate: validate has no settings: it is part of every receiver/);
  });

  it('requires pipelines sharing a receiver to run the same synchronous processors', () => {
    const text = `receivers:
  http: {}
exporters:
  file: {path: a.jsonl}
service:
  pipelines:
    traces/a:
      receivers: [http]
      processors: [namespace]
      exporters: [file]
    traces/b:
      receivers: [http]
      exporters: [file]
`;
    expect(problems(text)).toEqual([
      'c.yaml:11:5 service.pipelines.traces/b.processors: pipelines traces/a and traces/b share receiver "http" and must list the same synchronous processors with the same settings',
    ]);
  });

  it('rejects non-traces pipelines and YAML syntax errors with positions', () => {
    expect(problems(minimal.replace('    traces:', '    metrics:'))[0]).toBe(
      'c.yaml:8:5 service.pipelines.metrics: only traces pipelines exist (`traces` or `traces/<name>`)');
    expect(problems('receivers: [unclosed\n')[0]).toMatch(/^c\.yaml:\d+:\d+ \(top level\): /);
  });

  it('reports a port out of range and a NUL in a path as problems, not start-up failures', () => {
    const port = minimal.replace('  http: {}', '  http: {endpoint: "127.0.0.1:99999"}');
    expect(problems(port)).toEqual(['c.yaml:2:20 receivers.http.endpoint: port 99999 is out of range: use 0 to 65535 (0 picks a free port)']);
    expect(problems(minimal.replace('  http: {}', '  http: {endpoint: "localhost"}'))[0])
      .toMatch(/receivers\.http\.endpoint: must be host:port, such as 127\.0\.0\.1:4319/);
    const nul = minimal + 'storage: {type: disk, directory: "./da\\0ta"}\n';
    expect(problems(nul)).toEqual(['c.yaml:11:34 storage.directory: must not contain a NUL character']);
  });

  it('takes the metrics address as host:port or none, defaulting to the Collector\'s 127.0.0.1:8888', () => {
    expect(loadConfigText(minimal, 'c.yaml', registry(), {}).service.telemetry.metrics.address).toBe('127.0.0.1:8888');
    const set = (value: string) => loadConfigText(minimal, 'c.yaml', registry(), {}, [`service.telemetry.metrics.address=${value}`]);
    expect(set('none').service.telemetry.metrics.address).toBe('none');
    expect(set('0.0.0.0:9464').service.telemetry.metrics.address).toBe('0.0.0.0:9464');
    expect(problems(minimal, {}, ['service.telemetry.metrics.address=off'])).toEqual([
      '--set:1:35 service.telemetry.metrics.address: must be host:port, such as 127.0.0.1:4319 (got "off"); or none to turn it off',
    ]);
  });

  it('refuses a YAML alias bomb with a problem, not a stack trace', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill('*' + prev).join(',')}]`);
    }
    const bomb = levels.join('\n') + '\n' + minimal;
    expect(problems(bomb)).toEqual([expect.stringMatching(/^c\.yaml:1:1 \(top level\): cannot read the YAML: .*alias/i)]);
  });
});

describe('--set overrides', () => {
  const load = (sets: string[], text = minimal, env: NodeJS.ProcessEnv = {}) => loadConfigText(text, 'c.yaml', registry(), env, sets);

  it('change a value, add a key, and read values as YAML (durations, numbers, lists), later ones winning', () => {
    const c = load([
      'receivers.http.endpoint=0.0.0.0:4319',
      'receivers.http.retry_after=5s',
      'service.memory_limit_mib=256',
      'exporters.file.path=first.jsonl',
      'exporters.file.path=second.jsonl',
    ]);
    expect(c.receivers.get('http')!.config).toEqual({ endpoint: '0.0.0.0:4319', retry_after: 5000 });
    expect(c.service.memory_limit_mib).toBe(256);
    expect(c.exporters.get('file')!.config.path).toBe('second.jsonl');
  });

  it('create what the file does not have: a second pipeline, a list, storage', () => {
    const c = load(['exporters::file/b::path=b.jsonl', 'service.pipelines.traces/b.receivers=[http]', 'service.pipelines.traces/b.exporters=[file/b]', 'storage=memory']);
    expect(c.pipelines.map((p) => p.id)).toEqual(['traces', 'traces/b']);
    expect(c.exporters.get('file/b')!.config.path).toBe('b.jsonl');
    expect(c.storage.type).toBe('memory');
  });

  it('split at :: when the path has it, so an id may hold a dot', () => {
    const text = minimal.replace('file:\n    path: out.jsonl', 'file/eu.west:\n    path: out.jsonl').replace('exporters: [file]', 'exporters: [file/eu.west]');
    const c = load(['exporters::file/eu.west::path=eu.jsonl'], text);
    expect(c.exporters.get('file/eu.west')!.config.path).toBe('eu.jsonl');
  });

  it('expand ${env:...} in a value like the file does', () => {
    const c = load(['receivers.http.endpoint=${env:HOST}:4319'], minimal, { HOST: '10.0.0.1' });
    expect(c.receivers.get('http')!.config.endpoint).toBe('10.0.0.1:4319');
    expect(problems(minimal, {}, ['exporters.file.path=${file:x}'])).toEqual([
      '--set:1:21 exporters.file.path: unsupported reference "${file:x}": only env is available',
    ]);
  });

  it('report a bad value, an unknown key and a malformed --set at the argument: --set:N:COL', () => {
    expect(problems(minimal, {}, ['receivers.http.endpoint=0.0.0.0:4319', 'receivers.http.retry_after=often'])).toEqual([
      '--set:2:28 receivers.http.retry_after: must be a duration such as 200ms, 5s or 1m (got "often")',
    ]);
    expect(problems(minimal, {}, ['receivers.http.endpont=1.2.3.4:5'])).toEqual(['--set:1:1 receivers.http.endpont: unknown key']);
    expect(problems(minimal, {}, ['receivers.http.endpoint'])).toEqual([
      '--set:1:1 (top level): --set takes path=value, such as receivers.http.endpoint=0.0.0.0:4319 (got "receivers.http.endpoint")',
    ]);
    expect(problems(minimal, {}, ['receivers..endpoint=x'])).toEqual(['--set:1:1 receivers..endpoint: the path "receivers..endpoint" has an empty segment']);
    expect(problems(minimal, {}, ['receivers.http.endpoint=[a'])[0]).toMatch(/^--set:1:25 receivers\.http\.endpoint: the value is not valid YAML: /);
    expect(problems(minimal, {}, ['exporters.file.path.x=1'])).toEqual([
      '--set:1:1 exporters.file.path.x: cannot set: a value on this path is not a mapping (or a list index is not a number)',
    ]);
  });

  it('report a problem in a component the override created at the argument, not at the top of the file', () => {
    expect(problems(minimal, {}, ['receivers.htp.endpoint=1.2.3.4:5'])).toEqual([
      '--set:1:1 receivers.htp: unknown receiver type "htp" (known: http)',
    ]);
  });

  it('leave problems in the file at their place in the file', () => {
    const text = minimal.replace('http: {}', 'http:\n    endpont: 1.2.3.4:5');
    expect(problems(text, {}, ['receivers.http.endpoint=0.0.0.0:1'])).toEqual(['c.yaml:3:5 receivers.http.endpont: unknown key']);
  });
});
