import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, whether this runs from bench/ (sources) or dist/bench/ (built). */
export const REPO = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes('/dist/') || here.endsWith('/dist/bench') ? resolve(here, '../..') : resolve(here, '..');
})();

export const CLI = resolve(REPO, 'dist/cmd/main.js');
export const LOADGEN = resolve(REPO, 'dist/bench/loadgen.js');
