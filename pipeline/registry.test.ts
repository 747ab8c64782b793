import { describe, expect, it } from 'vitest';
import { Registry, type AnyFactory } from './registry.ts';
import { object } from './schema.ts';

const spec = (type: string) => ({ type, kind: 'exporter' as const, schema: object({}) });
const factory = (type: string): AnyFactory => ({ ...spec(type), create: () => ({ made: type }) });
const used = (...types: string[]) => ({
  receivers: new Map(), processors: new Map(), exporters: new Map(types.map((t) => [t, { type: t }])),
});

describe('Registry', () => {
  it('imports a lazy component only when a config uses it, once', async () => {
    const imported: string[] = [];
    const registry = new Registry();
    for (const type of ['a', 'b']) registry.registerLazy({ ...spec(type), load: async () => { imported.push(type); return factory(type); } });
    // The schema is there before anything is imported: what the config loader and `validate` read.
    expect(registry.get('exporter', 'b')!.schema).toEqual(object({}));
    expect(registry.types('exporter')).toEqual(['a', 'b']);
    expect(() => registry.get('exporter', 'a')!.create({}, {})).toThrow('exporter "a" created before Registry.load imported it');
    await registry.load(used('a'));
    await registry.load(used('a'));
    expect(imported).toEqual(['a']);
    expect(registry.get('exporter', 'a')!.create({}, {})).toEqual({ made: 'a' });
  });

  it('refuses a loaded factory of another type than its spec says', async () => {
    const registry = new Registry().registerLazy({ ...spec('a'), load: async () => factory('b') });
    await expect(registry.load(used('a'))).rejects.toThrow('the factory loaded for exporter:a is exporter:b');
  });
});
