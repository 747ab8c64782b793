// The real OpenTelemetry Collector as a test peer: built once by collector.sh into a per-user cache,
// started per test with a generated config, stopped afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from './process.ts';

const SCRIPT = fileURLToPath(new URL('./collector.sh', import.meta.url));

export type CollectorBinary = { binary: string } | { skipped: string };

/** Why the Collector cannot be built here, or undefined when it can. */
export function collectorUnavailable(): string | undefined {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) {
    return "'go' is not on PATH, so the OpenTelemetry Collector cannot be built (install Go from https://go.dev/dl/)";
  }
  return undefined;
}

/**
 * `describe(title, suite)` when the Collector can be built here; otherwise one test that says loudly,
 * with the reason, that the suite was skipped (never a silent skip), and asserts that reason so a broken
 * detection cannot hide the suite on a machine that has go.
 */
export function describeWithCollector(title: string, suite: () => void): void {
  const unavailable = collectorUnavailable();
  if (unavailable === undefined) {
    describe(title, suite);
    return;
  }
  describe(title, () => {
    it(`is SKIPPED because ${unavailable}`, () => {
      console.warn(`\n*** ${title}: SKIPPED: ${unavailable} ***\n`);
      expect(unavailable).toMatch(/'go' is not on PATH/);
    });
  });
}

// The first build compiles the Collector (minutes on 2 cores); later runs find it in the cache.
const BUILD_TIMEOUT_MS = 30 * 60_000;

/**
 * For a suite inside describeWithCollector: a beforeAll that builds or finds the Collector, and a getter
 * for its path once that ran.
 */
export function useCollectorBinary(): () => string {
  let binary = '';
  beforeAll(async () => {
    const built = await collectorBinary();
    if ('skipped' in built) throw new Error(built.skipped);
    binary = built.binary;
  }, BUILD_TIMEOUT_MS);
  return () => binary;
}

/**
 * Builds (first time: minutes) or finds the cached Collector. The script's progress goes to this
 * process's stderr so a long first build is visibly not a hang.
 */
export async function collectorBinary(): Promise<CollectorBinary> {
  const reason = collectorUnavailable();
  if (reason !== undefined) return { skipped: reason };
  const child = spawn('bash', [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    process.stderr.write(c);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`collector.sh failed (exit ${code}):\n${stderr.slice(-4000)}`);
  const binary = stdout.trim().split('\n').pop() ?? '';
  if (binary === '') throw new Error(`collector.sh printed no binary path:\n${stderr.slice(-4000)}`);
  return { binary };
}

/** Telemetry settings that keep the Collector off its default ports (8888 metrics) and quiet. */
export const QUIET_TELEMETRY = {
  logs: { level: 'info' },
  metrics: { level: 'none' },
};

/**
 * Starts the Collector with `config` (written as JSON, which is YAML) in `dir` and waits until it logs
 * that it is ready.
 */
export async function startCollector(binary: string, config: object, dir: string): Promise<Peer> {
  const file = join(dir, 'otelcol.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2));
  const peer = startPeer('otelcol', binary, [`--config=file:${file}`], { cwd: dir });
  try {
    await peer.waitUntil(() => peer.output().includes('Everything is ready'), 60_000, 'ready log line');
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return peer;
}
