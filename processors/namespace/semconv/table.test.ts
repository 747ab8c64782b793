// The namespace README's table of which SDK attribute lands where is the semantic-convention rows
// themselves, written out: this test renders the rows and fails when the README says something else
// (then paste the rendering it prints).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from './index.ts';
import type { Row } from './rows.ts';

const START = '<!-- semconv-rows:start -->';
const END = '<!-- semconv-rows:end -->';

function line(row: Row): string {
  switch (row.kind) {
    case 'copy': return `| \`${row.src}\` | \`${row.dst}\` | copied |`;
    case 'prefix': return `| \`${row.src}.*\` | \`${row.dst}.*\` | each key below${row.path ? ', message paths shortened' : ''} |`;
    case 'json': return `| \`${row.src}\` | \`${row.dst}\` | JSON text decoded, objects and lists flattened below |`;
    case 'type': return `| \`${row.src}\` | \`ag.type.span\` | mapped to a span type |`;
    case 'custom': return `| ${row.sources.map((s) => `\`${s}\``).join(', ')} | \`${row.dst}\` | ${row.note} |`;
  }
}

function render(): string {
  const parts = ['Highest precedence first: a target one family wrote (or a key above or below it) is not written again by a lower one, and the explicit `ag.*` keys win over all of them.'];
  for (const { family } of FAMILIES) {
    parts.push('', `**${family.name}** (applies when a key starts with ${family.triggers.map((t) => `\`${t}\``).join(', ')})`, '',
      '| attribute | lands at | how |', '|---|---|---|', ...family.rows.map(line));
  }
  return parts.join('\n');
}

describe('the namespace README lists every semantic-convention row', () => {
  it('as the rows say', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start).toBeGreaterThan(0);
    const written = readme.slice(start + START.length, end).trim();
    const rendered = render();
    if (written !== rendered) console.log(`${START}\n${rendered}\n${END}`);
    expect(written).toBe(rendered);
  });
});
