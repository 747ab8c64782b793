// Paths of the `otlp` receiver's own HTTP listener: `/v1/traces` and `/otlp/v1/traces` (the tracing
// backend's path), after stripping every leading `/api` segment as the http receiver does.

export type OtlpPath = 'v1' | 'otlp' | undefined;

export function matchOtlpPath(url: string): OtlpPath {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  while (path === '/api' || path.startsWith('/api/')) path = path.slice(4);
  if (path === '/v1/traces') return 'v1';
  if (path === '/otlp/v1/traces') return 'otlp';
  return undefined;
}
