// The top level of an OTelTracingRequest (ingest-api.md §3.1, §2.3). Field type errors are reported
// together and before the exactly-one rule, as pydantic does (field validation, then the model rule).
import { isJsonObject } from '../../model/json-object.ts';
import type { TracingBody } from '../../model/batch.ts';
import type { ValidationItem } from './replies.ts';


/** The body's spans in flat or tree form, or the 422 items saying why it is not usable. */
export function tracingBodyOf(value: unknown): TracingBody | ValidationItem[] {
  if (!isJsonObject(value)) {
    return [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' }];
  }
  const spans = value.spans ?? undefined;
  const traces = value.traces ?? undefined;
  const problems: ValidationItem[] = [];
  if (spans !== undefined && !Array.isArray(spans)) {
    problems.push({ loc: ['body', 'spans'], msg: 'Input should be a valid list', type: 'list_type' });
  }
  if (traces !== undefined) {
    if (!isJsonObject(traces)) {
      problems.push({ loc: ['body', 'traces'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    } else {
      for (const key in traces) {
        const entry = traces[key];
        // A null entry is absent: it contributes no spans.
        if (entry === null) continue;
        if (!isJsonObject(entry)) {
          problems.push({ loc: ['body', 'traces', key], msg: 'Input should be a valid dictionary', type: 'dict_type' });
        } else if (entry.spans != null && !isJsonObject(entry.spans)) {
          problems.push({
            loc: ['body', 'traces', key, 'spans'],
            msg: 'Input should be a valid dictionary',
            type: 'dict_type',
          });
        }
      }
    }
  }
  if (problems.length > 0) return problems;
  if ((spans === undefined) === (traces === undefined)) {
    return [{ loc: ['body'], msg: "Provide exactly one of 'spans' or 'traces'", type: 'exactly_one' }];
  }
  return spans !== undefined
    ? { form: 'flat', spans: spans as unknown[] }
    : { form: 'tree', traces: traces as Record<string, unknown> };
}
