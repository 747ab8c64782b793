// JSON string literals. Almost every key and value in a span needs no escaping; checking that with one
// regular expression and wrapping the text in quotes is markedly faster than JSON.stringify, which is
// kept for the strings that do need it (quotes, backslashes, control characters, lone surrogates).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export function quoteJson(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}
