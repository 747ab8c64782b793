import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, REQUIRED_NODE_MAJOR } from './node-version.ts';

describe('the Node version check', () => {
  it('is the version package.json requires', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${REQUIRED_NODE_MAJOR}`);
  });

  it('accepts that major and newer, and names the version needed and the one running otherwise', () => {
    expect(nodeVersionProblem(`${REQUIRED_NODE_MAJOR}.0.0`, '/x/node')).toBeUndefined();
    expect(nodeVersionProblem('25.1.0', '/x/node')).toBeUndefined();
    const problem = nodeVersionProblem('20.20.2', '/usr/bin/node');
    expect(problem).toContain(`needs Node.js ${REQUIRED_NODE_MAJOR} or newer, but runs on Node.js 20.20.2 (/usr/bin/node)`);
    expect(nodeVersionProblem('23.11.0', '/x/node')).toContain('23.11.0');
  });
});
