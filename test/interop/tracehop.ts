// tracehop as a test peer: the built CLI as a child process (`node dist/cmd/main.js --config FILE`),
// exactly as a user runs it, from a Collector-shaped config with one `otlp` receiver and one exporter.
// `npm test` builds dist/ before vitest runs; running these files alone needs `npm run build` first.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPeer } from './process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist/cmd/main.js');

export interface TracehopConfig {
  receivers: { otlp: { protocols: { http: { endpoint: string } } } };
  exporters: Record<string, Record<string, unknown>>;
  service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
}

export interface Tracehop {
  /** Stops and waits until everything acknowledged was handed to the exporters and flushed. */
  stop(): Promise<void>;
  output(): string;
}

/** A config: `otlp` receiver on `port` (HTTP only), one pipeline to the exporter `exporterId`. */
export function otlpPipeline(port: number, exporterId: string, exporter: Record<string, unknown>): TracehopConfig {
  return {
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
    exporters: { [exporterId]: exporter },
    service: { pipelines: { traces: { receivers: ['otlp'], exporters: [exporterId] } } },
  };
}

async function receiverReady(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${endpoint}/otlp/v1/traces`);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts the daemon in `dir` (its working directory: ./data lands there) and waits for the receiver. */
export async function startTracehop(config: TracehopConfig, dir: string): Promise<Tracehop> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it first)`);
  const file = join(dir, 'tracehop.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2));
  // process.execPath: the Node 24 that runs the tests (the system node may be older).
  // The metrics on a free port: the default 8888 may be taken by another test's daemon.
  const peer = startPeer('tracehop', process.execPath, [CLI, '--config', file, '--set', 'service.telemetry.metrics.address=127.0.0.1:0'], { cwd: dir });
  const endpoint = config.receivers.otlp.protocols.http.endpoint;
  try {
    await peer.waitUntil(() => receiverReady(endpoint), 60_000, `OTLP receiver on ${endpoint}`);
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return {
    output: () => peer.output(),
    async stop() {
      const code = await peer.stop();
      if (code !== 0) throw new Error(`tracehop exited with ${String(code)}; output:\n${peer.output().slice(-4000)}`);
    },
  };
}
