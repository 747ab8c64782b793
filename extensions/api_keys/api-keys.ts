// The `api_keys` authenticator: accepted keys, each with its project, inline in the config and/or in a
// file that is read again when it changes (a key removed there is refused from the next check on, with
// no restart).
//
// Keys are matched by pipeline/auth.ts (digests only; never logged).
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { isJsonObject } from '../../model/json-object.ts';
import type { Authenticator, Identity } from '../../pipeline/component.ts';
import { StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { KeySet, type KeyEntry } from '../../pipeline/auth.ts';
import type { ApiKeysConfig } from './config.ts';

/** An entry as `keys` takes it: exactly one of key / key_sha256 (64 hex digits), an optional project. */
function isEntry(e: unknown): e is KeyEntry {
  if (!isJsonObject(e)) return false;
  if (Object.keys(e).some((k) => k !== 'key' && k !== 'key_sha256' && k !== 'project')) return false;
  if ((e.key === undefined) === (e.key_sha256 === undefined)) return false;
  if (e.key !== undefined && (typeof e.key !== 'string' || e.key === '')) return false;
  if (e.key_sha256 !== undefined && (typeof e.key_sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(e.key_sha256))) return false;
  return e.project === undefined || (typeof e.project === 'string' && e.project !== '');
}

/** The entries of a keys file, or the reason it is not usable. */
function readKeysFile(file: string): KeyEntry[] | string {
  let value: unknown;
  try {
    value = parse(readFileSync(file, 'utf8')) ?? [];
  } catch (error) {
    return `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  if (!Array.isArray(value) || !value.every(isEntry)) return `${file} is not a list of {key | key_sha256, project} entries`;
  return value as KeyEntry[];
}

export class ApiKeysAuthenticator implements Authenticator {
  readonly #config: ApiKeysConfig;
  readonly #logger: Logger;
  #keys: KeySet;
  #fileStamp = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(config: ApiKeysConfig, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#keys = new KeySet(config.keys);
  }

  async start(): Promise<void> {
    const file = this.#config.file;
    if (file === undefined) return;
    const problem = this.#reload();
    if (problem !== undefined) throw new StartupError(`api_keys: ${problem}`);
    this.#timer = setInterval(() => {
      const failed = this.#reload();
      if (failed !== undefined) this.#logger.warn('api_keys file not reloaded; the keys in use stay', { problem: failed });
    }, this.#config.reload_interval);
    this.#timer.unref();
  }

  /** Reads the file again when it changed; the reason when it could not be used (nothing changes then). */
  #reload(): string | undefined {
    const file = this.#config.file!;
    let stamp: string;
    try {
      const s = statSync(file);
      stamp = `${s.mtimeMs}:${s.size}`;
    } catch (error) {
      return `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    }
    if (stamp === this.#fileStamp) return undefined;
    const entries = readKeysFile(file);
    if (typeof entries === 'string') return entries;
    this.#keys = new KeySet(this.#config.keys, entries);
    if (this.#fileStamp !== '') this.#logger.info('api_keys file reloaded', { keys: this.#keys.size });
    this.#fileStamp = stamp;
    return undefined;
  }

  authenticate(authorization: string | undefined): Identity | undefined {
    return this.#keys.authenticate(authorization);
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
  }
}
