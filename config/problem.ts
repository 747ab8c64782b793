// A config problem, printed as `FILE:LINE:COL path.to.key: message` by `tracehop validate`.

export interface Problem {
  file: string;
  line: number;
  col: number;
  /** Dotted path of the key the problem is about (`receivers.http.endpoint`). */
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.col} ${p.path || '(top level)'}: ${p.message}`;
}

export class ConfigError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
