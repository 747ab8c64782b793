// The body of `POST /spans/query` and `POST /traces/query` (read-api.md §7): `{"filtering"?: Filter,
// "windowing"?: Windowing}`, the flat query's filter (query-body.ts) and the shared windowing. The
// saved-query references of Agenta's body are known but not served: 422 `not_supported`.
import { isJsonObject } from '../../model/json-object.ts';
import { absent, parseFilter, type Filter, type Problem, type QueryLimits } from './query-body.ts';
import { parseWindowing, type Windowing } from './windowing.ts';

const KEYS = ['filtering', 'windowing'];
const SAVED_QUERY_KEYS = ['query_ref', 'query_variant_ref', 'query_revision_ref'];

export interface StructuredQuery {
  filter: Filter;
  windowing: Windowing;
}

/** `cursor`: what `windowing.next` names, span ids (`/spans/query`) or trace ids (`/traces/query`). */
export function parseStructuredQuery(body: unknown, limits: QueryLimits, cursor: 'span' | 'trace'): StructuredQuery | Problem[] {
  if (!isJsonObject(body)) return [{ loc: ['body'], msg: 'The body must be a JSON object', type: 'model_attributes_type' }];
  const out: Problem[] = [];
  for (const key of Object.keys(body)) {
    if (SAVED_QUERY_KEYS.includes(key)) {
      out.push({ loc: ['body', key], msg: `${key}: tracehop has no saved queries; send the filter in 'filtering'`, type: 'not_supported' });
    } else if (!KEYS.includes(key)) {
      out.push({ loc: ['body', key], msg: `Unknown key '${key}'; allowed: ${KEYS.join(', ')}`, type: 'extra_forbidden' });
    }
  }
  const query: StructuredQuery = {
    filter: { operator: 'and', conditions: [] },
    windowing: parseWindowing(body.windowing, ['body', 'windowing'], limits, cursor, out),
  };
  if (!absent(body.filtering)) {
    const filter = parseFilter(body.filtering, ['body', 'filtering'], out);
    if (filter !== undefined) query.filter = filter;
  }
  return out.length > 0 ? out : query;
}
