// Command-line arguments: `tracehop [--config FILE]`, `tracehop validate --config FILE`, --version, --help.

export type Command =
  | { kind: 'run'; config?: string }
  | { kind: 'validate'; config: string }
  | { kind: 'version' }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

export const USAGE = `Usage:
  tracehop [--config FILE]            run the daemon (without --config: the built-in default)
  tracehop validate --config FILE     check a config without starting anything (exit 0, or 2 with every problem)
  tracehop --version                  print the version
  tracehop --help                     print this help

Signals: SIGTERM or SIGINT stop accepting, deliver what was acknowledged, and exit
(bounded by service.shutdown_timeout).`;

export function parseArgs(argv: string[]): Command {
  let config: string | undefined;
  let validate = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version' || arg === '-v') return { kind: 'version' };
    if (arg === 'validate' && i === 0) validate = true;
    else if (arg === '--config' || arg === '-c') {
      config = argv[++i];
      if (config === undefined) return { kind: 'usage-error', message: '--config needs a file' };
    } else if (arg.startsWith('--config=')) config = arg.slice('--config='.length);
    else return { kind: 'usage-error', message: `unknown argument "${arg}"` };
  }
  if (validate) return config ? { kind: 'validate', config } : { kind: 'usage-error', message: 'validate needs --config FILE' };
  return { kind: 'run', config };
}
