// `${env:NAME}`, `${NAME}`, `${env:NAME:-default}` and `$$` (a literal `$`) in string values, as the
// Collector's env provider does. An unset variable without a default becomes the empty string (the
// Collector's behaviour) and is reported as a warning.

export interface Expansion {
  value: string;
  /** The whole value was one reference: the caller may read the result as a YAML scalar (a number...). */
  whole: boolean;
  unset: string[];
  error?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function expandEnv(input: string, env: NodeJS.ProcessEnv): Expansion {
  const unset: string[] = [];
  if (!input.includes('$')) return { value: input, whole: false, unset };
  let out = '';
  let references = 0;
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    if (input[i + 1] === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (input[i + 1] !== '{') {
      out += c;
      i++;
      continue;
    }
    const end = input.indexOf('}', i + 2);
    if (end < 0) return { value: input, whole: false, unset, error: `unterminated "\${" in "${input}"` };
    let ref = input.slice(i + 2, end);
    if (ref.startsWith('env:')) ref = ref.slice(4);
    else if (ref.includes(':') && !ref.includes(':-')) {
      return { value: input, whole: false, unset, error: `unsupported reference "\${${ref}}": only env is available` };
    }
    const sep = ref.indexOf(':-');
    const name = sep < 0 ? ref : ref.slice(0, sep);
    if (!NAME.test(name)) return { value: input, whole: false, unset, error: `invalid variable name "${name}"` };
    const value = env[name];
    if (value !== undefined && value !== '') out += value;
    else if (sep >= 0) out += ref.slice(sep + 2);
    else {
      if (value === undefined) unset.push(name);
      out += value ?? '';
    }
    references++;
    i = end + 1;
  }
  const whole = references === 1 && /^\$\{[^}]*\}$/.test(input);
  return { value: out, whole, unset };
}
