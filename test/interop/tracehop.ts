// tracehop as a test peer, from a Collector-shaped config with one `otlp` receiver and one exporter.
// Preferred: the built CLI as a child process (`node dist/cmd/main.js --config FILE`), exactly as a user
// runs it. While the CLI is not built, the same config is run in-process from the component factories,
// so the interop tests exercise the real receiver and exporters either way; `mode` says which ran.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Exporter, Receiver, IngestConsumer } from '../../pipeline/component.ts';
import type { AnyFactory } from '../../pipeline/registry.ts';
import type { Span } from '../../pipeline/span.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { validator } from '../../config/ajv.ts';
import { startPeer } from './process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist/cmd/main.js');

export interface TracehopConfig {
  receivers: { otlp: { protocols: { http: { endpoint: string } } } };
  exporters: Record<string, Record<string, unknown>>;
  service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
}

export interface Tracehop {
  mode: 'cli' | 'in-process';
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

export async function startTracehop(config: TracehopConfig, dir: string): Promise<Tracehop> {
  return existsSync(CLI) ? startCli(config, dir) : startInProcess(config, dir);
}

async function startCli(config: TracehopConfig, dir: string): Promise<Tracehop> {
  const file = join(dir, 'tracehop.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2));
  // process.execPath: the Node 24 that runs the tests (the system node may be older).
  const peer = startPeer('tracehop', process.execPath, [CLI, '--config', file], { cwd: dir });
  const endpoint = config.receivers.otlp.protocols.http.endpoint;
  try {
    await peer.waitUntil(() => receiverReady(endpoint), 30_000, `OTLP receiver on ${endpoint}`);
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return {
    mode: 'cli',
    output: () => peer.output(),
    async stop() {
      const code = await peer.stop();
      if (code !== 0) throw new Error(`tracehop exited with ${String(code)}; output:\n${peer.output().slice(-4000)}`);
    },
  };
}

async function loadFactory(path: string): Promise<AnyFactory> {
  const module = (await import(pathToFileURL(join(ROOT, path)).href)) as { factory?: AnyFactory };
  if (!module.factory) throw new Error(`${path} exports no factory`);
  return module.factory;
}

function applySchema(factory: AnyFactory, config: Record<string, unknown>, id: string): Record<string, unknown> {
  const copy = structuredClone(config);
  const validate = validator(factory.schema);
  if (!validate(copy)) throw new Error(`${id}: ${JSON.stringify(validate.errors)}`);
  return copy;
}

async function startInProcess(config: TracehopConfig, dir: string): Promise<Tracehop> {
  const [exporterId, exporterConfig] = Object.entries(config.exporters)[0];
  const exporterType = exporterId.split('/')[0];
  const exporterFactory = await loadFactory(`exporters/${exporterType}/factory.ts`);
  const receiverFactory = await loadFactory('receivers/otlp/factory.ts');
  const delivery = applySchema(exporterFactory, exporterConfig, exporterId);
  const deadLetter = delivery.dead_letter as Record<string, unknown> | undefined;
  if (deadLetter && deadLetter.path === undefined) deadLetter.path = join(dir, 'dead-letters.jsonl');
  const exporter = exporterFactory.create(delivery, { id: exporterId, logger: silentLogger }) as Exporter;
  await exporter.start();
  // No stream in between: the receiver's acknowledgement waits for the export itself, which is
  // stricter than the daemon (ack = appended) and enough to compare what comes out.
  const consumer: IngestConsumer = {
    admit: () => undefined,
    prepare: () => {},
    append: (spans: Span[]) => exporter.export(spans),
  };
  const receiverConfig = applySchema(receiverFactory, config.receivers.otlp, 'otlp');
  const receiver = receiverFactory.create(receiverConfig, { id: 'otlp', logger: silentLogger, consumer }) as Receiver;
  await receiver.start();
  return {
    mode: 'in-process',
    output: () => '',
    async stop() {
      await receiver.shutdown();
      await exporter.shutdown();
    },
  };
}
