// `exporters.otlp` (otlp.md exporter table; timeout, retry and dead_letter as every exporter has them).
import type { DeliveryConfig, JsonSchema } from '../../pipeline/component.ts';
import { deliveryProperties, integer, object, oneOf } from '../../pipeline/schema.ts';

export interface OtlpExporterConfig extends DeliveryConfig {
  /** Base URL; `/v1/traces` is appended unless the URL already has a path. */
  endpoint: string;
  encoding: 'proto' | 'json';
  compression: 'gzip' | 'none';
  /** Static request headers (e.g. `Authorization`). */
  headers: Record<string, string>;
  /** By project (of the API key spans were accepted with): headers added to, or replacing, `headers` for
   *  that project's requests, so a gateway forwards each project under its own credentials. */
  headers_by_project?: Record<string, Record<string, string>>;
  /** Milliseconds, per HTTP request. */
  timeout: number;
  /** Larger batches are sent as several requests of at most this many spans. */
  max_request_spans: number;
}

export const schema: JsonSchema = object(
  {
    endpoint: { type: 'string', minLength: 1 },
    encoding: oneOf(['proto', 'json'], 'proto'),
    compression: oneOf(['gzip', 'none'], 'gzip'),
    headers: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
    headers_by_project: {
      type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } }, default: {},
    },
    max_request_spans: integer(1000, 1),
    ...deliveryProperties,
  },
  ['endpoint'],
);

/**
 * The URL requests go to: the endpoint itself when it has a path (`https://host/api/otlp/v1/traces`),
 * else the endpoint + `/v1/traces`. Undefined when it is not an http(s) URL.
 */
export function tracesUrl(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces';
  return url.toString();
}
