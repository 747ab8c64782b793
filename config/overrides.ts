// `--set path=value` (the Collector's --set): one setting changed on the command line, applied to the
// YAML document before anything is checked, so a bad value is reported like one written in the file.
//
// The path is split at `.` (`receivers.http.endpoint`), or at `::` when it contains `::` (for an id with
// a dot in it: `exporters::kafka/eu.west::topic`). The value is read as YAML: `5s`, `true`, `256` and
// `0.0.0.0:4319` are what they would be in the file, `[a, b]` is a list, an empty value is null.
//
// Problems about an overridden key point at the argument: file `--set`, line = which --set (1 for the
// first), column = where the path (1) or the value starts in that argument.
import { parseDocument } from 'yaml';
import type { Problem } from './problem.ts';

export const OVERRIDE_SOURCE = '--set';

export interface Override {
  /** 1 for the first --set on the command line. */
  index: number;
  path: string[];
  value: unknown;
  /** Column of the value in the argument (1-based). */
  valueCol: number;
}

function problem(index: number, col: number, path: string, message: string): Problem {
  return { file: OVERRIDE_SOURCE, line: index, col, path, message };
}

/** `path=value` as given to --set (the `index`th), or the problem with it. */
export function parseOverride(text: string, index: number): Override | Problem {
  const eq = text.indexOf('=');
  if (eq <= 0) return problem(index, 1, '', `--set takes path=value, such as receivers.http.endpoint=0.0.0.0:4319 (got ${JSON.stringify(text)})`);
  const pathText = text.slice(0, eq);
  const path = pathText.includes('::') ? pathText.split('::') : pathText.split('.');
  if (path.some((segment) => segment.trim() === '')) return problem(index, 1, pathText, `the path ${JSON.stringify(pathText)} has an empty segment`);
  const valueText = text.slice(eq + 1);
  const doc = parseDocument(valueText, { prettyErrors: false });
  if (doc.errors.length > 0) {
    return problem(index, eq + 2, path.join('.'), `the value is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return problem(index, eq + 2, path.join('.'), `the value cannot be read: ${(error as Error).message}`);
  }
  return { index, path, value, valueCol: eq + 2 };
}

/**
 * Where a problem at `path` lies when an override set it: the override whose path is the longest prefix
 * of `path` (the problem is in the value it set, or is that key), else, when `unplaced` (the file has no
 * position for it: a mapping an override created), an override below `path`.
 */
export function overridePosition(overrides: readonly Override[], path: readonly string[], atKey: boolean, unplaced: boolean): { file: string; line: number; col: number } | undefined {
  let best: Override | undefined;
  for (const o of overrides) {
    if (o.path.length <= path.length && o.path.every((s, i) => s === path[i]) && (best === undefined || o.path.length >= best.path.length)) best = o;
  }
  if (best !== undefined) {
    const onKey = atKey && best.path.length === path.length;
    return { file: OVERRIDE_SOURCE, line: best.index, col: onKey ? 1 : best.valueCol };
  }
  if (!unplaced) return undefined;
  const below = overrides.find((o) => path.every((s, i) => s === o.path[i]));
  return below === undefined ? undefined : { file: OVERRIDE_SOURCE, line: below.index, col: 1 };
}
