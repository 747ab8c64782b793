// Component factories by kind and type. cmd/components.ts registers every built-in component.
import type { ComponentKind, Factory } from './component.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFactory = Factory<any, any, any>;

export class Registry {
  private readonly factories = new Map<string, AnyFactory>();

  register(factory: AnyFactory): this {
    this.factories.set(`${factory.kind}:${factory.type}`, factory);
    return this;
  }

  get(kind: ComponentKind, type: string): AnyFactory | undefined {
    return this.factories.get(`${kind}:${type}`);
  }

  types(kind: ComponentKind): string[] {
    return [...this.factories.values()].filter((f) => f.kind === kind).map((f) => f.type).sort();
  }
}
