import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { jsonLines } from '../../test/helpers/json-lines.ts';
import { sampleSpan, sampleSpans } from '../../test/record/fixtures.ts';
import { factory } from './factory.ts';
import { StdoutExporter, type StdoutExporterOptions } from './stdout-exporter.ts';

/** A stream that keeps what it is given. */
function collector(): { out: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

function exporter(options: Partial<StdoutExporterOptions> & { out: Writable }): StdoutExporter {
  return new StdoutExporter({ id: 'stdout/debug', verbosity: 'basic', attributesShape: 'flat', ...options });
}

describe('stdout exporter', () => {
  it('config defaults: basic, flat', () => {
    const config: Record<string, unknown> = {};
    expect(validator(factory.schema)(config)).toBe(true);
    expect(config).toMatchObject({ verbosity: 'basic', attributes_shape: 'flat' });
    expect(validator(factory.schema)({ verbosity: 'loud' })).toBe(false);
    expect(factory).toMatchObject({ type: 'stdout', kind: 'exporter' });
  });

  it('basic: one summary line per batch naming the exporter and the span count', async () => {
    const { out, text } = collector();
    const e = exporter({ out });
    await e.start();
    await e.export(sampleSpans(3));
    await e.export([sampleSpan(0, { traceId: '0af7651916cd43dd8448eb211c80319c' }), sampleSpan(1)]);
    await e.export([]);
    await e.shutdown();
    expect(text()).toBe('stdout/debug: 3 spans, 1 trace\nstdout/debug: 2 spans, 2 traces\n');
  });

  it('detailed: one JSON record per line, in the configured attributes shape', async () => {
    for (const shape of ['flat', 'nested'] as const) {
      const { out, text } = collector();
      const e = exporter({ out, verbosity: 'detailed', attributesShape: shape });
      await e.start();
      await e.export(sampleSpans(2));
      await e.export(sampleSpans(1, 2));
      await e.shutdown();
      expect(text()).toBe(jsonLines(sampleSpans(3), { attributesShape: shape }));
    }
    const { out, text } = collector();
    const nested = exporter({ out, verbosity: 'detailed', attributesShape: 'nested' });
    await nested.export([sampleSpan(0)]);
    expect(JSON.parse(text()).attributes.ag.type).toEqual({ span: 'chat', trace: 'invocation' });
  });

  it('waits for drain when the stream says it is full', async () => {
    const held: Array<() => void> = [];
    const out = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, callback) {
        held.push(() => callback());
      },
    });
    const e = exporter({ out, verbosity: 'detailed' });
    await e.start();
    let resolved = false;
    const done = e.export(sampleSpans(2)).then(() => {
      resolved = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(out.writableNeedDrain).toBe(true);
    expect(resolved).toBe(false);
    expect(held.length).toBe(1);
    held[0]();
    await done;
    expect(resolved).toBe(true);
    expect(out.writableNeedDrain).toBe(false);
  });

  it('rejects when the stream fails, without an unhandled stream error', async () => {
    const out = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const e = exporter({ out, verbosity: 'detailed' });
    await e.start();
    await expect(e.export([sampleSpan(0)])).rejects.toThrow('EPIPE');
    await expect(e.export([sampleSpan(1)])).rejects.toThrow();
    await e.shutdown();
  });

  it('the factory writes to process.stdout by default', () => {
    const made = factory.create({ verbosity: 'basic', attributes_shape: 'flat' } as never, { id: 'stdout', logger: silentLogger });
    expect((made as unknown as { out: unknown }).out).toBe(process.stdout);
  });
});
