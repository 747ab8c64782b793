import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';

/** The version from package.json: an asset of the single executable (sea/build.ts), else one directory
 *  above cmd/ in the source tree and in dist/. */
export function version(): string {
  const texts: (() => string)[] = isSea()
    ? [() => getAsset('package.json', 'utf8')]
    : ['../package.json', '../../package.json'].map((rel) => () => readFileSync(new URL(rel, import.meta.url), 'utf8'));
  for (const text of texts) {
    try {
      const pkg = JSON.parse(text()) as { name?: string; version?: string };
      if (pkg.name === 'tracehop' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return 'unknown';
}
