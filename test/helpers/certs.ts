// Certificates for the TLS tests, made by the openssl command (on every machine the tests run on): a CA,
// server certificates for 127.0.0.1 / localhost signed by it, and a client certificate for mutual TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  caFile: string;
  ca: Buffer;
  /** A certificate and key signed by the CA for `name` (server: for 127.0.0.1 and localhost). */
  issue(name: string, kind: 'server' | 'client'): { certFile: string; keyFile: string; cert: Buffer; key: Buffer };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tracehop-certs-'));
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2',
    '-subj', '/CN=tracehop test CA'], dir);
  const caFile = join(dir, 'ca.pem');
  return {
    dir,
    caFile,
    ca: readFileSync(caFile),
    issue(name, kind) {
      const ext = kind === 'server'
        ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
        : 'extendedKeyUsage=clientAuth';
      writeFileSync(join(dir, `${name}.ext`), ext + '\n');
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
      openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`,
        '-days', '2', '-extfile', `${name}.ext`], dir);
      const certFile = join(dir, `${name}.pem`);
      const keyFile = join(dir, `${name}.key`);
      return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
    },
  };
}
