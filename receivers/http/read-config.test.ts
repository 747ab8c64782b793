// receivers.http.read.store (read-api.md §10): resolved by the config loader against the real components.
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../cmd/components.ts';
import { loadConfigText } from '../../config/load.ts';
import { ConfigError, formatProblem } from '../../config/problem.ts';

function config(exporters: string, read = ''): string {
  const ids = [...exporters.matchAll(/^ {2}(\S+):/gm)].map((m) => m[1]);
  return `receivers:
  http: {${read}}
exporters:
${exporters}
service:
  pipelines:
    traces:
      receivers: [http]
      exporters: [${ids.join(', ')}]
`;
}

function problems(text: string): string[] {
  try {
    loadConfigText(text, 'c.yaml', builtinRegistry(), {});
    return [];
  } catch (err) {
    return (err as ConfigError).problems.map(formatProblem);
  }
}

const readOf = (text: string) => (loadConfigText(text, 'c.yaml', builtinRegistry(), {}).receivers.get('http')!.config.read as Record<string, unknown>);

describe('receivers.http.read', () => {
  it('takes the only store exporter when store is unset, with the defaults of §10', () => {
    expect(readOf(config('  store: {}\n  file: {path: out.jsonl}'))).toEqual({ store: 'store', default_limit: 100, max_limit: 10_000, query_timeout: 5000 });
    expect(readOf(config('  file: {path: out.jsonl}')).store).toBeUndefined();
  });

  it('refuses several store exporters without read.store, naming both (§12 test 36)', () => {
    expect(problems(config('  store: {}\n  store/b: {path: b.db}'))).toEqual([
      'c.yaml:2:9 receivers.http: several store exporters (store, store/b): name the one serving reads in read.store',
    ]);
    expect(readOf(config('  store: {}\n  store/b: {path: b.db}', 'read: {store: store/b}')).store).toBe('store/b');
  });

  it('refuses a read.store that is missing or not a store exporter', () => {
    expect(problems(config('  file: {path: out.jsonl}', 'read: {store: file}'))).toEqual([
      'c.yaml:2:24 receivers.http.read.store: "file" is not a store exporter (define it under exporters with type store)',
    ]);
    const unused = config('  store: {}\n  file: {path: out.jsonl}', 'read: {store: store}').replace('exporters: [store, file]', 'exporters: [file]');
    expect(problems(unused)).toEqual(['c.yaml:2:24 receivers.http.read.store: store exporter "store" is in no pipeline (list it in a pipeline\'s exporters)']);
    expect(problems(config('  store: {}', 'read: {default_limit: 20000}'))[0]).toContain('read.default_limit: must not exceed read.max_limit (10000)');
  });
});
