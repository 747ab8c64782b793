// `npm run bench` itself, end to end at a tiny duration, so that a broken scenario, load generator or
// report shows up in the test suite and not the next time someone measures. Figures are not judged here
// (no timing assertions); that every target was measured and answered is.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../bench/scenarios.ts';
import { collectorUnavailable } from '../interop/collector.ts';
import { REPO } from '../helpers/daemon.ts';

describe('npm run bench (smoke)', () => {
  it('two rounds of agenta-flat, otlp-proto, otlp-proto-llm and limit: every target measured, all accepted, medians and ratios reported, no scratch left', () => {
    const results = mkdtempSync(join(tmpdir(), 'tracehop-bench-smoke-'));
    // The run's own temporary directory, to see that bodies and daemon outputs are removed afterwards.
    const scratch = mkdtempSync(join(tmpdir(), 'tracehop-bench-smoke-tmp-'));
    const run = spawnSync(
      process.execPath,
      [join(REPO, 'dist/bench/run.js'), '--scenario', 'agenta-flat,otlp-proto,otlp-proto-llm,limit', '--duration', '1s', '--rounds', '2', '--results', results],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TMPDIR: scratch } },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(readdirSync(scratch)).toEqual([]);
    const [file] = readdirSync(results);
    const written = JSON.parse(readFileSync(join(results, file), 'utf8')) as { rounds: Row[][] };
    expect(written.rounds).toHaveLength(2);
    const withCollector = collectorUnavailable() === undefined;
    for (const rows of written.rounds) {
      const targets = rows.map((r) => `${r.scenario} / ${r.target}`);
      expect(targets).toEqual([
        'agenta-flat / tracehop (storage memory)',
        'otlp-proto / tracehop',
        'otlp-proto / otelcol',
        'otlp-proto-llm / tracehop',
        'otlp-proto-llm / otelcol',
        'limit / tracing flat JSON',
        'limit / OTLP protobuf',
        'limit / OTLP protobuf, LLM spans',
      ]);
      for (const r of rows) {
        if (r.scenario === 'limit') expect(r.spansPerSecond).toBeGreaterThan(0);
        else if (r.target === 'otelcol' && !withCollector) expect(r.note).toMatch(/skipped: go is not on PATH/);
        else {
          expect(r.measurement!.load.spansAccepted).toBeGreaterThan(0);
          expect(r.measurement!.load.non2xx + r.measurement!.load.errors).toBe(0);
          expect(r.measurement!.cpuSeconds).toBeGreaterThan(0);
          expect(r.measurement!.peakRssMiB).toBeGreaterThan(0);
        }
      }
    }
    expect(run.stdout).toContain('2 rounds (medians');
    expect(run.stdout).toMatch(/\| agenta-flat \(tracehop \(storage memory\)\) as a fraction of its limit \| \d+\.\d\d \| \d+\.\d\d-\d+\.\d\d \|/);
    // Each OTLP scenario against the limit of its own bodies.
    expect(run.stdout).toMatch(/\| otlp-proto-llm \(tracehop\) as a fraction of its limit \| \d+\.\d\d \|/);
    if (withCollector) {
      expect(run.stdout).toMatch(/\| otlp-proto: otelcol \/ tracehop CPU-seconds per M spans/);
      expect(run.stdout).toMatch(/\| otlp-proto-llm: otelcol \/ tracehop CPU-seconds per M spans/);
    }
  });
});
