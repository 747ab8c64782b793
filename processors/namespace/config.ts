// `processors.namespace` settings (ag-namespace.md, table at the top).
import type { JsonSchema } from '../../pipeline/component.ts';
import { object, oneOf } from '../../pipeline/schema.ts';

export type SemconvMode = 'otlp' | 'all' | 'none';

export interface NamespaceConfig {
  /** Which batches get semantic-convention mapping (§6): those decoded from OTLP, every batch, or none. */
  semconv: SemconvMode;
  /** Cumulative token/cost/error propagation within each batch (§4.3). */
  propagate_metrics: boolean;
}

export const schema: JsonSchema = object({
  semconv: oneOf(['otlp', 'all', 'none'], 'otlp'),
  propagate_metrics: { type: 'boolean', default: false },
});
