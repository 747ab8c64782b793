// Which attribute keys are never looked at (allow_keys), redacted whole (deny_keys), or removed with
// `content: off`. The keys are flat dotted paths (`ag.data.inputs.prompt.0.content`), so a pattern that
// names an object covers every key below it.
import { FAMILIES } from '../namespace/semconv/index.ts';

/**
 * One regular expression for a list of globs: `*` is any run of characters inside one path segment,
 * `**` any run across segments. A pattern matches a key that it matches whole, or whose leading segments
 * it matches (`ag.data.inputs.secret` covers `ag.data.inputs.secret.0.value`). undefined: an empty list.
 */
export function compileGlobs(globs: readonly string[]): RegExp | undefined {
  if (globs.length === 0) return undefined;
  const alternatives = globs.map((glob) =>
    glob.split('**').map((part) => part.split('*').map(escapeRegExp).join('[^.]*')).join('.*'));
  return new RegExp(`^(?:${alternatives.join('|')})(?:\\.|$)`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.|?+()[\]{}]/g, '\\$&');
}

/**
 * The keys an instrumentation puts prompts, completions, tool arguments and results in, as the
 * namespace's semantic-convention rows read them into `ag.data` (taken from the rows, so a new row is
 * covered without a second list): each an exact key or, ending in a dot, a prefix.
 */
export function contentSourceKeys(): string[] {
  const keys = new Set<string>();
  for (const { family } of FAMILIES) {
    for (const row of family.rows) {
      if (row.kind === 'type' || !(row.dst === 'ag.data' || row.dst.startsWith('ag.data.'))) continue;
      if (row.kind === 'custom') for (const source of row.sources) keys.add(source);
      else keys.add(row.src);
    }
  }
  return [...keys];
}

/** `ag.data` and every key the namespace maps into it: the regular expression `content: off` removes. */
export function compileContentKeys(): RegExp {
  const alternatives = ['ag.data', ...contentSourceKeys()].map((k) =>
    k.endsWith('.') ? `${escapeRegExp(k)}.*` : `${escapeRegExp(k)}(?:\\..*)?`);
  return new RegExp(`^(?:${alternatives.join('|')})$`);
}

/**
 * Events that carry a message (OpenTelemetry GenAI's `gen_ai.user.message`, `gen_ai.choice`, the older
 * `gen_ai.content.prompt` / `.completion`): removed whole with `content: off`.
 */
export function isMessageEvent(name: string): boolean {
  return name.startsWith('gen_ai.') &&
    (name.endsWith('.message') || name === 'gen_ai.choice' || name.startsWith('gen_ai.content.'));
}
