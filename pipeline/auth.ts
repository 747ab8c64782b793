// API keys, the one way tracehop authenticates a request: the `api_keys` extension and the http
// receiver's `api_keys` shorthand both hold a KeySet.
//
// The key a request presents in an `Authorization` value (HTTP header or gRPC metadata): `ApiKey <key>`,
// `Bearer <key>` (scheme case-insensitive), or HTTP Basic with the key as the password (what
// Langfuse-style SDKs send: `base64(public:secret)`).
//
// Keys are held only as SHA-256 digests. A presented key is digested and looked up: how long the lookup
// takes can only tell an attacker about digests, from which no key can be found, never about the keys
// themselves. Keys are never logged.
import { createHash } from 'node:crypto';
import type { Identity } from './component.ts';

const TOKEN = /^(apikey|bearer|basic) +(\S(?:.*\S)?)\s*$/i;

/** The presented key, or undefined when the value carries none. */
export function presentedKey(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const m = TOKEN.exec(authorization);
  if (!m) return undefined;
  if (m[1].toLowerCase() !== 'basic') return m[2];
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 || colon === decoded.length - 1 ? undefined : decoded.slice(colon + 1);
}

/** One accepted key: the key itself, or the hex SHA-256 digest of it (so a config holds no secret). */
export interface KeyEntry {
  key?: string;
  key_sha256?: string;
  project?: string;
}

function sha256(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Accepted keys by digest, each with its identity; a later entry for the same key wins. */
export class KeySet {
  readonly #byDigest = new Map<string, Identity>();

  constructor(...lists: ReadonlyArray<readonly KeyEntry[]>) {
    for (const entries of lists) {
      for (const e of entries) this.#byDigest.set(e.key !== undefined ? sha256(e.key) : e.key_sha256!.toLowerCase(), { project: e.project });
    }
  }

  get size(): number {
    return this.#byDigest.size;
  }

  /** The identity for an `Authorization` value, or undefined: refuse. */
  authenticate(authorization: string | undefined): Identity | undefined {
    const key = presentedKey(authorization);
    return key === undefined ? undefined : this.#byDigest.get(sha256(key));
  }
}

/** The `WWW-Authenticate` value of a 401: the schemes a client may use. */
export const WWW_AUTHENTICATE = 'ApiKey realm="tracehop", Bearer realm="tracehop", Basic realm="tracehop"';

/** A receiver's `auth` setting (as the Collector's `auth: {authenticator: <extension id>}`). */
export interface AuthSetting {
  authenticator: string;
}

export const authSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['authenticator'],
  properties: { authenticator: { type: 'string', minLength: 1 } },
};

/**
 * What a receiver calls per request: the identity, or undefined to refuse; undefined as a whole when
 * the receiver takes requests without credentials.
 */
export type Authenticate = ((authorization: string | undefined) => Identity | undefined) | undefined;

/** The check for a receiver's `auth` setting, from the context's extensions. */
export function authenticateFor(
  auth: AuthSetting | undefined, authenticator: ((id: string) => { authenticate: NonNullable<Authenticate> }) | undefined,
): Authenticate {
  if (auth === undefined) return undefined;
  if (authenticator === undefined) throw new Error(`auth: no extension "${auth.authenticator}" runs here`);
  const extension = authenticator(auth.authenticator);
  return (authorization) => extension.authenticate(authorization);
}
