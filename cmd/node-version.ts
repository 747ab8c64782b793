// The Node version tracehop needs, checked by the entry point before any module that needs it is loaded:
// on an older Node, importing the rest fails with a SyntaxError about a missing export (zstdDecompressSync)
// that does not say what is wrong. This module uses nothing newer than what it checks for.

/** The oldest Node major version tracehop runs on (package.json `engines.node`). */
export const REQUIRED_NODE_MAJOR = 24;

/** The message for a Node older than REQUIRED_NODE_MAJOR, or undefined when `version` (`20.20.2`) is enough. */
export function nodeVersionProblem(version: string, execPath: string): string | undefined {
  const major = Number.parseInt(version.split('.')[0], 10);
  if (major >= REQUIRED_NODE_MAJOR) return undefined;
  return `tracehop: needs Node.js ${REQUIRED_NODE_MAJOR} or newer, but runs on Node.js ${version} (${execPath}).\n` +
    `Install Node.js ${REQUIRED_NODE_MAJOR}+, or from a checkout use the one it installs: npm start, or node_modules/.bin/node dist/cmd/main.js.\n`;
}
