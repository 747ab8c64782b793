/** A receiver endpoint `host:port` -> parts; `[::1]:4318` -> `::1`; an empty host listens on every interface. */
export function parseEndpoint(endpoint: string): { host: string | undefined; port: number } {
  const colon = endpoint.lastIndexOf(':');
  let host = endpoint.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? undefined : host, port: Number(endpoint.slice(colon + 1)) };
}
