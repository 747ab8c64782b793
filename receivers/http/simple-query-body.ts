// The body of `POST /simple/traces/query` (read-api.md §8.5) -> a checked SimpleQuery, or the 422 entries.
// Unknown keys at any level are refused; the view parts are checked as on create (simple-trace.ts), links
// name ids in any ingest form, each id optional.
import { isJsonObject } from '../../model/json-object.ts';
import { normaliseSpanId, normaliseTraceId } from '../../model/ids.ts';
import { absent, unknownKeys, type Loc, type Problem, type QueryLimits } from '../../exporters/store/query-body.ts';
import type { PartialLink, SimpleQuery } from '../../exporters/store/simple-query.ts';
import { parseWindowing } from '../../exporters/store/windowing.ts';
import { checkSimpleParts } from './simple-trace.ts';
import { setMember } from '../../model/set-member.ts';

const BODY_KEYS = ['trace', 'links', 'windowing'];
const TRACE_KEYS = ['origin', 'kind', 'channel', 'tags', 'meta', 'references', 'links'];
const LINK_KEYS = ['trace_id', 'span_id'];

function partialLink(value: unknown, loc: Loc, out: Problem[]): PartialLink | undefined {
  if (!isJsonObject(value)) {
    out.push({ loc, msg: 'A link must be an object with trace_id and / or span_id', type: 'dict_type' });
    return undefined;
  }
  unknownKeys(value, LINK_KEYS, loc, out);
  const link: PartialLink = {};
  if (!absent(value.trace_id)) {
    const id = normaliseTraceId(value.trace_id);
    if (id === undefined) out.push({ loc: [...loc, 'trace_id'], msg: 'trace_id is not a trace id', type: 'invalid_id' });
    else link.trace_id = id;
  }
  if (!absent(value.span_id)) {
    const id = normaliseSpanId(value.span_id);
    if (id === undefined) out.push({ loc: [...loc, 'span_id'], msg: 'span_id is not a span id', type: 'invalid_id' });
    else link.span_id = id;
  }
  return link;
}

function linkList(value: unknown[], loc: Loc, out: Problem[]): PartialLink[] {
  return value.flatMap((item, i) => partialLink(item, [...loc, i], out) ?? []);
}

/** The query of a checked body (empty reads as {}), or its problems. */
export function parseSimpleQuery(body: unknown, limits: QueryLimits): SimpleQuery | Problem[] {
  if (!isJsonObject(body)) return [{ loc: ['body'], msg: 'The body must be a JSON object', type: 'model_attributes_type' }];
  const out: Problem[] = [];
  unknownKeys(body, BODY_KEYS, ['body'], out);
  const query: SimpleQuery = { windowing: parseWindowing(body.windowing, ['body', 'windowing'], limits, 'trace', out) };
  if (!absent(body.trace)) {
    if (!isJsonObject(body.trace)) out.push({ loc: ['body', 'trace'], msg: 'trace must be an object', type: 'dict_type' });
    else {
      const { links, ...rest } = body.trace;
      // `data` is no query part (§8.5): its one problem is extra_forbidden, not also its shape.
      delete rest.data;
      unknownKeys(body.trace, TRACE_KEYS, ['body', 'trace'], out);
      Object.assign(query, checkSimpleParts(rest, out));
      const loc = ['body', 'trace', 'links'];
      if (Array.isArray(links)) query.anyLink = linkList(links, loc, out);
      else if (isJsonObject(links)) {
        const byKey: Record<string, PartialLink> = {};
        for (const name of Object.keys(links)) {
          const link = partialLink(links[name], [...loc, name], out);
          if (link !== undefined) setMember(byKey, name, link);
        }
        query.linksByKey = byKey;
      } else if (!absent(links)) out.push({ loc, msg: 'links must be an object of links or a list of links', type: 'dict_type' });
    }
  }
  if (!absent(body.links)) {
    if (Array.isArray(body.links)) query.traceLinks = linkList(body.links, ['body', 'links'], out);
    else out.push({ loc: ['body', 'links'], msg: 'links must be a list of links', type: 'list_type' });
  }
  return out.length > 0 ? out : query;
}
