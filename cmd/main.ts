#!/usr/bin/env node
// The tracehop entry point: checks the Node version, then loads the CLI. Nothing that needs a newer Node
// is imported before the check (start.ts and what it loads come in by a dynamic import), so an older
// Node prints what it needs instead of a SyntaxError.
import { nodeVersionProblem } from './node-version.ts';

/** Exit code on a Node too old (a start-up problem, like a port in use). */
const EXIT_OLD_NODE = 1;

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(EXIT_OLD_NODE);
}
await import('./start.ts');
