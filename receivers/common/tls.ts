// TLS for every receiver (`tls: {cert_file, key_file, client_ca_file, min_version, reload_interval}`), the
// same keys on HTTP and gRPC. With `client_ca_file` a client must present a certificate that CA signed
// (mutual TLS). The files are read again every `reload_interval` when they changed, so a renewed
// certificate is served without a restart; a renewal that cannot be read is logged and the certificate
// in use stays.
import { readFileSync, statSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import type { JsonSchema } from '../../pipeline/component.ts';
import type { Logger } from '../../pipeline/log.ts';
import { duration, object, oneOf, path } from '../../pipeline/schema.ts';

export interface TlsConfig {
  cert_file: string;
  key_file: string;
  /** Clients must present a certificate signed by this CA (mutual TLS). */
  client_ca_file?: string;
  /** Lowest TLS version accepted (HTTP; gRPC negotiates TLS 1.2 or later). */
  min_version: '1.2' | '1.3';
  /** Milliseconds between checks of the files for a renewed certificate. */
  reload_interval: number;
}

export const tlsSchema: JsonSchema = {
  ...object({
    cert_file: path(),
    key_file: path(),
    client_ca_file: path(),
    min_version: oneOf(['1.2', '1.3'], '1.2'),
    reload_interval: duration('1m'),
  }, ['cert_file', 'key_file']),
  // Off unless given: no default object.
  default: undefined,
};
delete (tlsSchema as Record<string, unknown>).default;

/** The files of `tls` that cannot be read, as config problems (`tracehop validate`). */
export function tlsProblems(tls: TlsConfig | undefined, key: string): Array<{ key: string; message: string }> {
  if (tls === undefined) return [];
  const problems: Array<{ key: string; message: string }> = [];
  for (const name of ['cert_file', 'key_file', 'client_ca_file'] as const) {
    const file = tls[name];
    if (file === undefined) continue;
    try {
      readFileSync(file);
    } catch (error) {
      problems.push({ key: `${key}.${name}`, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
    }
  }
  return problems;
}

/** What node:https needs from `tls`, read from the files now. */
export function secureContextOptions(tls: TlsConfig): SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean } {
  const mutual = tls.client_ca_file !== undefined;
  return {
    cert: readFileSync(tls.cert_file),
    key: readFileSync(tls.key_file),
    ...(mutual ? { ca: readFileSync(tls.client_ca_file!) } : {}),
    minVersion: tls.min_version === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
    requestCert: mutual,
    rejectUnauthorized: mutual,
  };
}

/**
 * Calls `reload` with fresh options whenever one of the files changed (modification time or size),
 * checking every `reload_interval`. Returns the function that stops watching.
 */
export function watchTlsFiles(tls: TlsConfig, reload: (options: SecureContextOptions) => void, logger: Logger): () => void {
  const files = [tls.cert_file, tls.key_file, tls.client_ca_file].filter((f): f is string => f !== undefined);
  const stamp = () => files.map((f) => {
    try {
      const s = statSync(f);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'missing';
    }
  }).join('|');
  let last = stamp();
  const timer = setInterval(() => {
    const now = stamp();
    if (now === last) return;
    try {
      reload(secureContextOptions(tls));
      last = now;
      logger.info('tls certificate reloaded', { cert_file: tls.cert_file });
    } catch (error) {
      // A half-written renewal: keep serving the certificate in use, try again next time.
      logger.warn('tls certificate not reloaded', { cert_file: tls.cert_file, error });
    }
  }, tls.reload_interval);
  timer.unref();
  return () => clearInterval(timer);
}
