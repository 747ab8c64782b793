// `npm run package`: builds `dist-sea/tracehop`, one Linux executable that runs without Node or
// node_modules (Node's single executable applications, sea/README.md). Three steps:
//   1. esbuild bundles sea/main.ts and every dependency into one CommonJS file (the format Node 24
//      embeds);
//   2. the Node running this script turns the bundle into a blob (`--experimental-sea-config`);
//   3. postject copies that Node's binary and injects the blob into the copy.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { inject } from 'postject';
import { V8_FLAGS } from '../cmd/v8-flags.ts';

/** Where the executable and its intermediate files go (relative to the working directory). */
const OUT = resolve(process.argv[2] ?? 'dist-sea');
/** Node's sentinel for an injected SEA blob (single-executable-applications.md). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const bundle = join(OUT, 'tracehop.cjs');
const blob = join(OUT, 'tracehop.blob');
const executable = join(OUT, 'tracehop');
mkdirSync(OUT, { recursive: true });

await build({
  entryPoints: [resolve(import.meta.dirname, '..', '..', 'sea', 'main.ts')],
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  outfile: bundle,
  // Dependencies that find their own files from `import.meta.url` get the executable's path instead of
  // an empty value (a CommonJS bundle has no import.meta).
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: 'const importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});

const seaConfig = join(OUT, 'sea-config.json');
writeFileSync(seaConfig, JSON.stringify({
  main: bundle,
  output: blob,
  disableExperimentalSEAWarning: true,
  // cmd/v8-flags.ts: the flags `tracehop` otherwise re-executes itself with.
  execArgv: V8_FLAGS,
  // cmd/version.ts reads the version from here.
  assets: { 'package.json': resolve(import.meta.dirname, '..', '..', 'package.json') },
}));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });

rmSync(executable, { force: true });
copyFileSync(process.execPath, executable);
chmodSync(executable, 0o755);
await inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: FUSE });
process.stdout.write(`${executable}\n`);
