// The pieces of the worker mode that need no process: the `service.workers` key, what each worker runs
// of the config, and the status the primary's health probes assess.
import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { builtinRegistry } from '../../cmd/components.ts';
import { clusterStatus } from '../../cmd/workers/cluster-status.ts';
import { shardDirectory, workerConfig, workerPath } from '../../cmd/workers/worker-view.ts';
import { DEFAULT_CONFIG, DEFAULT_CONFIG_NAME } from '../../config/default.ts';
import { loadConfigText } from '../../config/load.ts';
import { ConfigError } from '../../config/problem.ts';
import type { ServiceStatus } from '../../pipeline/status.ts';

const withWorkers = (workers: string, exporter = 'file') => `extensions:
  health_check: {}
  api_keys: {keys: [{key: k1}]}
receivers:
  http: {endpoint: 127.0.0.1:0}
exporters:
  file: {path: ./out/spans.jsonl}
${exporter.includes('store') ? '  store: {path: ./store.db}\n' : ''}  otlp: {endpoint: http://127.0.0.1:1, dead_letter: {path: ./dl/otlp.jsonl}}
service:
  workers: ${workers}
  extensions: [health_check, api_keys]
  pipelines:
    traces: {receivers: [http], exporters: [${exporter}]}
`;

const load = (text: string) => loadConfigText(text, 'tracehop.yaml', builtinRegistry(), {});
const problems = (text: string) => {
  try {
    load(text);
    return [];
  } catch (error) {
    return (error as ConfigError).problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`);
  }
};

describe('service.workers', () => {
  it('is 1 unless set, so a config written before workers existed runs as it did', () => {
    expect(load(withWorkers('1').replace('  workers: 1\n', '')).service.workers).toBe(1);
    expect(load(DEFAULT_CONFIG.replace(DEFAULT_CONFIG_NAME, '')).service.workers).toBe(1);
  });

  it('auto: the CPUs the process may use, or 1 when a store exporter runs', () => {
    expect(load(withWorkers('auto')).service.workers).toBe(availableParallelism());
    expect(load(withWorkers('auto', 'store')).service.workers).toBe(1);
    expect(load(withWorkers('3')).service.workers).toBe(3);
  });

  it('refuses more than one worker with a store, and anything but a count or auto, at the key', () => {
    expect(problems(withWorkers('2', 'file, store'))).toEqual([
      '11:12 service.workers: must be 1 with a store exporter (store): its SQLite database has one writer and serves the reads; use a file, kafka or otlp exporter to run several workers',
    ]);
    for (const [value, got] of [['0', '0'], ['many', '"many"'], ['1.5', '1.5']]) {
      expect(problems(withWorkers(value))).toEqual([`10:12 service.workers: must be a number of worker processes (1 or more) or auto (got ${got})`]);
    }
  });
});

describe('what a worker runs', () => {
  it('its own file, dead-letter files and stream shard; no health_check and no metrics listener', () => {
    const config = load(withWorkers('2', 'file, otlp'));
    const one = workerConfig(config, 1);
    expect(one.exporters.get('file')!.config).toMatchObject({ path: './out/spans.1.jsonl', dead_letter: { path: './data/dead-letters/file.1.jsonl' } });
    expect(one.exporters.get('otlp')!.config).toMatchObject({ dead_letter: { path: './dl/otlp.1.jsonl' } });
    expect([...one.extensions!.keys()]).toEqual(['api_keys']);
    expect(one.service.telemetry.metrics.address).toBe('none');
    // The loaded config itself is left as it was, for the primary.
    expect(config.exporters.get('file')!.config.path).toBe('./out/spans.jsonl');
    expect([...config.extensions!.keys()]).toEqual(['health_check', 'api_keys']);
  });

  it('names files and shards by worker index; one worker keeps the directory layout of before', () => {
    expect(workerPath('./data/spans.jsonl', 0)).toBe('./data/spans.0.jsonl');
    expect(workerPath('spans', 3)).toBe('spans.3');
    expect(shardDirectory('/d', 'traces/llm', { index: 2, count: 4 })).toBe('/d/traces_llm/2');
    expect(shardDirectory('/d', 'traces', { index: 0, count: 1 })).toBe('/d/traces');
    expect(shardDirectory('/d', 'traces', undefined)).toBe('/d/traces');
  });
});

describe('the status the primary assesses', () => {
  const worker = (bytes: number, backlog: number, failingSince?: number, listening = true): ServiceStatus => ({
    receivers: [{ id: 'http', listening, endpoints: ['http://127.0.0.1:4319'] }],
    pipelines: [{
      id: 'traces',
      stream: { writable: true, bytes, maxBytes: 100 },
      exporters: [{ exporter: 'file', pipeline: 'traces', failingSince, backlogSpans: backlog }],
    }],
  });

  it('listens when every worker listens, shows the fullest shard, adds backlogs, fails since the first failure', () => {
    const status = clusterStatus([worker(10, 3, 500), worker(95, 4, 200)]);
    expect(status.receivers).toEqual([{ id: 'http', listening: true, endpoints: ['http://127.0.0.1:4319'] }]);
    expect(status.pipelines[0].stream).toEqual({ writable: true, bytes: 95, maxBytes: 100 });
    expect(status.pipelines[0].exporters[0]).toMatchObject({ backlogSpans: 7, failingSince: 200 });
  });

  it('does not listen while a worker is down or one of them stopped listening', () => {
    expect(clusterStatus([worker(0, 0), undefined]).receivers[0].listening).toBe(false);
    expect(clusterStatus([worker(0, 0), worker(0, 0, undefined, false)]).receivers[0].listening).toBe(false);
  });
});
