// Paths of the `otlp` receiver's own HTTP listener: `/v1/traces`, `/otlp/v1/traces` (the tracing
// backend's path) and `/public/otel/v1/traces` (Langfuse's, served the same way), after stripping every
// leading `/api` segment as the http receiver does.

export type OtlpPath = 'v1' | 'otlp' | undefined;

/** Where Langfuse's SDKs send OTLP (`{host}/api/public/otel/v1/traces`), without the `/api`. */
export const LANGFUSE_PATH = '/public/otel/v1/traces';

export function matchOtlpPath(url: string): OtlpPath {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  while (path === '/api' || path.startsWith('/api/')) path = path.slice(4);
  if (path === '/v1/traces') return 'v1';
  if (path === '/otlp/v1/traces' || path === LANGFUSE_PATH) return 'otlp';
  return undefined;
}
