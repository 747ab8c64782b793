import { describe, expect, it } from 'vitest';
import { BUILTIN_COMPONENTS } from './components.ts';

describe('built-in components', () => {
  it('each spec is the one its factory module uses', async () => {
    for (const [spec, load] of BUILTIN_COMPONENTS) {
      const { factory } = await load();
      expect({ type: factory.type, kind: factory.kind, schema: factory.schema, check: factory.check })
        .toEqual({ type: spec.type, kind: spec.kind, schema: spec.schema, check: spec.check });
    }
  });
});
