import type { Logger } from '../../pipeline/log.ts';

/** A receiver endpoint `host:port` -> parts; `[::1]:4318` -> `::1`; an empty host listens on every interface. */
export function parseEndpoint(endpoint: string): { host: string | undefined; port: number } {
  const colon = endpoint.lastIndexOf(':');
  let host = endpoint.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? undefined : host, port: Number(endpoint.slice(colon + 1)) };
}

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string | undefined): boolean {
  if (host === undefined) return false;
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Logs a warning when a listener other machines can reach takes requests without authentication. */
export function warnIfOpen(endpoint: string, authenticated: boolean, logger: Logger, listener: string): void {
  if (authenticated || isLoopback(parseEndpoint(endpoint).host)) return;
  logger.warn(`${listener} listens on ${endpoint}, reachable from other machines, without authentication (set auth: {authenticator: ...})`, { endpoint });
}
