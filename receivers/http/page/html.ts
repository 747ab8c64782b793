// HTML built from strings with escaping as the default: every value put into an `html` template is
// escaped unless it is itself the result of `html` (markup this module made). Span names, attributes and
// ids come from clients, so no path from span content to markup may skip escaping.

/** Markup known to be safe: made by `html`, from literal template text and escaped values. */
export class Markup {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

type Part = Markup | string | number | bigint | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part instanceof Markup) return part.text;
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: literal parts as written, every `${value}` escaped (arrays joined, Markup kept). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Markup(out);
}
