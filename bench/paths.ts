import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const built = here.includes('/dist/') || here.endsWith('/dist/bench');

/** The repository root, whether this runs from bench/ (sources) or dist/bench/ (built). */
export const REPO = built ? resolve(here, '../..') : resolve(here, '..');

// Run from the sources (Node 24 strips the types), the benchmark measures the sources: a profiling run
// against a working tree then needs no build, and never measures a stale dist/.
export const CLI = built ? resolve(REPO, 'dist/cmd/main.js') : resolve(REPO, 'cmd/main.ts');
export const LOADGEN = built ? resolve(REPO, 'dist/bench/loadgen.js') : resolve(REPO, 'bench/loadgen.ts');
