// Command-line arguments: `tracehop [--config FILE] [--set path=value]...`, `tracehop validate --config
// FILE`, `tracehop print-default-config`, --version, --help.

export type Command =
  | { kind: 'run'; config?: string; sets: string[] }
  | { kind: 'validate'; config: string; sets: string[] }
  | { kind: 'print-default-config' }
  | { kind: 'version' }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

export const USAGE = `Usage:
  tracehop [--config FILE] [--set path=value]...   run the daemon (without --config: the built-in default)
  tracehop validate --config FILE [--set path=value]...
                                      check a config without starting anything (exit 0, or 2 with every problem)
  tracehop print-default-config       print the built-in default config (YAML)
  tracehop --version                  print the version
  tracehop --help                     print this help

--set changes one setting of the config, before it is checked: the path is split at dots (or at ::),
the value is read as YAML, e.g. --set receivers.http.endpoint=0.0.0.0:4319 --set service.memory_limit_mib=256.
It may be given several times; later ones win.

The built-in default reads TRACEHOP_HTTP_ENDPOINT, TRACEHOP_OTLP_HTTP_ENDPOINT, TRACEHOP_OTLP_GRPC_ENDPOINT,
TRACEHOP_HEALTH_ENDPOINT and TRACEHOP_METRICS_ENDPOINT (host:port) when they are set.

Signals: SIGTERM or SIGINT stop accepting, deliver what was acknowledged, and exit
(bounded by service.shutdown_timeout).`;

export function parseArgs(argv: string[]): Command {
  let config: string | undefined;
  let validate = false;
  const sets: string[] = [];
  if (argv[0] === 'print-default-config') {
    return argv.length === 1 ? { kind: 'print-default-config' } : { kind: 'usage-error', message: `print-default-config takes no argument (got "${argv[1]}")` };
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version' || arg === '-v') return { kind: 'version' };
    if (arg === 'validate' && i === 0) validate = true;
    else if (arg === '--config' || arg === '-c') {
      config = argv[++i];
      if (config === undefined) return { kind: 'usage-error', message: '--config needs a file' };
    } else if (arg.startsWith('--config=')) config = arg.slice('--config='.length);
    else if (arg === '--set') {
      const set = argv[++i];
      if (set === undefined) return { kind: 'usage-error', message: '--set needs path=value' };
      sets.push(set);
    } else if (arg.startsWith('--set=')) sets.push(arg.slice('--set='.length));
    else return { kind: 'usage-error', message: `unknown argument "${arg}"` };
  }
  if (validate) return config ? { kind: 'validate', config, sets } : { kind: 'usage-error', message: 'validate needs --config FILE' };
  return { kind: 'run', config, sets };
}
