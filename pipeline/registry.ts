// Component factories by kind and type. cmd/components.ts registers every built-in component.
//
// A built-in component is registered lazily: its config schema and cross-key checks are at hand (the
// config loader and `tracehop validate` need them), its implementation, and the libraries behind it, are
// imported only when a config uses it (`load`, before a graph is built). A daemon thus pays the memory of
// the components its config names, not of every component tracehop has.
import type { ComponentKind, Factory } from './component.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFactory = Factory<any, any, any>;

/** What the config loader reads of a component without loading it (a component folder's spec.ts). */
export type ComponentSpecOf<Config> = Pick<Factory<Config, unknown>, 'type' | 'kind' | 'schema' | 'check'>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ComponentSpec = ComponentSpecOf<any>;

/** A component whose factory module is imported on first use. */
export interface LazyFactory extends ComponentSpec {
  load(): Promise<AnyFactory>;
}

/** The component types a config uses, by kind (a loaded config or a graph spec). */
export interface ComponentsUsed {
  extensions?: Map<string, { type: string }>;
  receivers?: Map<string, { type: string }>;
  processors?: Map<string, { type: string }>;
  exporters?: Map<string, { type: string }>;
}

const key = (kind: ComponentKind, type: string) => `${kind}:${type}`;

export class Registry {
  private readonly factories = new Map<string, AnyFactory>();
  private readonly loaders = new Map<string, () => Promise<AnyFactory>>();
  /** The implementations loaded so far (a loaded one stays: a reload back to it costs nothing). */
  private readonly loaded = new Map<string, AnyFactory>();

  /** A factory whose implementation is already imported (a test's own component). */
  register(factory: AnyFactory): this {
    this.factories.set(key(factory.kind, factory.type), factory);
    this.loaded.set(key(factory.kind, factory.type), factory);
    return this;
  }

  registerLazy(entry: LazyFactory): this {
    const id = key(entry.kind, entry.type);
    const { load, ...spec } = entry;
    this.loaders.set(id, load);
    this.loaded.delete(id);
    this.factories.set(id, {
      ...spec,
      create: (config: unknown, context: unknown) => {
        const factory = this.loaded.get(id);
        if (factory === undefined) throw new Error(`${entry.kind} "${entry.type}" created before Registry.load imported it`);
        return factory.create(config, context);
      },
    });
    return this;
  }

  /** The factory of a type; its `create` works once `load` imported the type (always, for `register`). */
  get(kind: ComponentKind, type: string): AnyFactory | undefined {
    return this.factories.get(key(kind, type));
  }

  types(kind: ComponentKind): string[] {
    return [...this.factories.values()].filter((f) => f.kind === kind).map((f) => f.type).sort();
  }

  /** Imports the implementation of every component type `used` names; before a graph of it is built. */
  async load(used: ComponentsUsed): Promise<void> {
    const wanted = new Set<string>();
    const add = (kind: ComponentKind, entries: Map<string, { type: string }> | undefined) => {
      for (const { type } of entries?.values() ?? []) wanted.add(key(kind, type));
    };
    add('extension', used.extensions);
    add('receiver', used.receivers);
    add('processor', used.processors);
    add('exporter', used.exporters);
    await Promise.all([...wanted].map(async (id) => {
      const load = this.loaders.get(id);
      if (load === undefined || this.loaded.has(id)) return;
      const factory = await load();
      if (key(factory.kind, factory.type) !== id) throw new Error(`the factory loaded for ${id} is ${factory.kind}:${factory.type}`);
      this.loaded.set(id, factory);
    }));
  }
}
