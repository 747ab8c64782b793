// Command-line arguments: `tracehop [--config FILE] [--set path=value]...`, `tracehop validate [--config
// FILE]`, `tracehop print-default-config`, `tracehop replay FILE [...]`, `tracehop tap [...]`,
// `tracehop inspect DIR`, `tracehop traces [...]`, `tracehop trace ID [...]`, --version, --help.
import { normaliseTraceId } from '../model/ids.ts';
import type { TapOptions } from './tap.ts';
import type { TraceOptions, TracesOptions } from './traces.ts';

export type Command =
  | { kind: 'run'; config?: string; sets: string[] }
  | { kind: 'validate'; config?: string; sets: string[] }
  | { kind: 'print-default-config' }
  | { kind: 'replay'; file: string; endpoint: string; apiKey?: string; batch: number }
  | { kind: 'inspect'; directory: string; json: boolean }
  | ({ kind: 'tap' } & TapOptions)
  | ({ kind: 'traces' } & TracesOptions)
  | ({ kind: 'trace' } & TraceOptions)
  | { kind: 'version' }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

export const USAGE = `Usage:
  tracehop [--config FILE] [--set path=value]...   run the daemon (without --config: the built-in default)
  tracehop validate [--config FILE] [--set path=value]...
                                      check a config without starting anything (exit 0, or 2 with every problem;
                                      without --config: the built-in default)
  tracehop print-default-config       print the built-in default config (YAML)
  tracehop replay FILE [--endpoint URL] [--api-key KEY] [--batch N]
                                      send a dead-letter file or a file exporter's output back into a running
                                      daemon's tracing API (default http://127.0.0.1:4319, 500 spans per
                                      request, the key also from TRACEHOP_API_KEY); exit 0 when every span
                                      was accepted, 1 otherwise
  tracehop tap [--address HOST:PORT] [--pipeline ID] [--received] [--trace-id ID] [--name NAME]
               [--attribute KEY=VALUE] [--count N]
                                      print the spans passing a pipeline of a running daemon (one JSON line each;
                                      after its processors, or as received), from its telemetry address
                                      (default 127.0.0.1:8888)
  tracehop traces [--limit N] [--endpoint URL] [--api-key KEY]
                                      the most recent traces in a running daemon's trace store, one line each
                                      (id, root span name, span count, start, duration; default 20 traces)
  tracehop trace ID [--endpoint URL] [--api-key KEY]
                                      one trace of the store as a tree of spans (name, type, duration, status);
                                      both read the tracing API (default http://127.0.0.1:4319, the key also
                                      from TRACEHOP_API_KEY) and exit 1 when it cannot answer
  tracehop inspect DIR [--json]       a disk stream's segments, readers' backlogs and quarantine, read-only
                                      (DIR: storage.directory, or one pipeline's stream inside it)
  tracehop --version                  print the version
  tracehop --help                     print this help

--set changes one setting of the config, before it is checked: the path is split at dots (or at ::),
the value is read as YAML, e.g. --set receivers.http.endpoint=0.0.0.0:4319 --set service.memory_limit_mib=256.
It may be given several times; later ones win.

The built-in default reads TRACEHOP_HTTP_ENDPOINT, TRACEHOP_OTLP_HTTP_ENDPOINT, TRACEHOP_OTLP_GRPC_ENDPOINT,
TRACEHOP_HEALTH_ENDPOINT and TRACEHOP_METRICS_ENDPOINT (host:port) when they are set.

Signals: SIGTERM or SIGINT stop accepting, deliver what was acknowledged, and exit
(bounded by service.shutdown_timeout).`;

/** The replay endpoint when none is given: the built-in default's tracing API. */
export const DEFAULT_REPLAY_ENDPOINT = 'http://127.0.0.1:4319';
const DEFAULT_REPLAY_BATCH = 500;

function parseReplay(argv: string[], env: NodeJS.ProcessEnv): Command {
  let file: string | undefined;
  let endpoint = DEFAULT_REPLAY_ENDPOINT;
  let apiKey = env.TRACEHOP_API_KEY || undefined;
  let batch = DEFAULT_REPLAY_BATCH;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string | undefined => argv[++i];
    if (arg === '--endpoint') endpoint = value() ?? '';
    else if (arg === '--api-key') apiKey = value();
    else if (arg === '--batch') batch = Number(value());
    else if (arg.startsWith('-') || file !== undefined) return { kind: 'usage-error', message: `replay: unknown argument "${arg}"` };
    else file = arg;
  }
  if (file === undefined) return { kind: 'usage-error', message: 'replay needs a FILE' };
  if (!/^https?:\/\/./.test(endpoint)) return { kind: 'usage-error', message: `replay: --endpoint must be an http(s) URL (got "${endpoint}")` };
  if (!Number.isInteger(batch) || batch < 1) return { kind: 'usage-error', message: 'replay: --batch must be a positive integer' };
  return apiKey ? { kind: 'replay', file, endpoint, apiKey, batch } : { kind: 'replay', file, endpoint, batch };
}

/** Traces `tracehop traces` lists when no --limit is given: a screenful. */
const DEFAULT_TRACES_LIMIT = 20;

/** `traces` and `trace ID`: the read client's options, the endpoint and key as replay takes them. */
function parseRead(argv: string[], env: NodeJS.ProcessEnv): Command {
  const command = argv[0] as 'traces' | 'trace';
  let endpoint = DEFAULT_REPLAY_ENDPOINT;
  let apiKey = env.TRACEHOP_API_KEY || undefined;
  let limit = DEFAULT_TRACES_LIMIT;
  let id: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-') && command === 'trace' && id === undefined) { id = arg; continue; }
    const value = argv[++i];
    if (!arg.startsWith('-') || !['--endpoint', '--api-key', ...(command === 'traces' ? ['--limit'] : [])].includes(arg)) {
      return { kind: 'usage-error', message: `${command}: unknown argument "${arg}"` };
    }
    if (value === undefined) return { kind: 'usage-error', message: `${command}: ${arg} needs a value` };
    if (arg === '--endpoint') endpoint = value;
    else if (arg === '--api-key') apiKey = value;
    else limit = Number(value);
  }
  if (!/^https?:\/\/./.test(endpoint)) return { kind: 'usage-error', message: `${command}: --endpoint must be an http(s) URL (got "${endpoint}")` };
  const client = apiKey ? { endpoint, apiKey } : { endpoint };
  if (command === 'traces') {
    if (!Number.isInteger(limit) || limit < 1) return { kind: 'usage-error', message: 'traces: --limit must be a positive integer' };
    return { kind: 'traces', ...client, limit };
  }
  if (id === undefined) return { kind: 'usage-error', message: 'trace needs a trace ID' };
  const traceId = normaliseTraceId(id);
  if (traceId === undefined) return { kind: 'usage-error', message: `trace: "${id}" is not a trace id (32 hex digits or a UUID)` };
  return { kind: 'trace', ...client, traceId };
}

/** The telemetry address `tracehop tap` asks when none is given (the default of service.telemetry.metrics.address). */
export const DEFAULT_TAP_ADDRESS = '127.0.0.1:8888';

function parseTap(argv: string[]): Command {
  const options: TapOptions = { address: DEFAULT_TAP_ADDRESS, received: false };
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--received') { options.received = true; continue; }
    const value = argv[++i];
    if (value === undefined) return { kind: 'usage-error', message: `tap: ${arg} needs a value` };
    if (arg === '--address') options.address = value.replace(/^https?:\/\//, '');
    else if (arg === '--pipeline') options.pipeline = value;
    else if (arg === '--trace-id') options.traceId = value;
    else if (arg === '--name') options.name = value;
    else if (arg === '--attribute') options.attribute = value;
    else if (arg === '--count') {
      options.count = Number(value);
      if (!Number.isInteger(options.count) || options.count < 1) return { kind: 'usage-error', message: 'tap: --count must be a positive integer' };
    } else return { kind: 'usage-error', message: `tap: unknown argument "${arg}"` };
  }
  return { kind: 'tap', ...options };
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = {}): Command {
  if (argv[0] === 'replay') return parseReplay(argv, env);
  if (argv[0] === 'tap') return parseTap(argv);
  if (argv[0] === 'traces' || argv[0] === 'trace') return parseRead(argv, env);
  if (argv[0] === 'inspect') {
    const rest = argv.slice(1);
    const json = rest.includes('--json');
    const dirs = rest.filter((a) => a !== '--json');
    if (dirs.length !== 1 || dirs[0].startsWith('-')) return { kind: 'usage-error', message: 'inspect needs one DIR (and optionally --json)' };
    return { kind: 'inspect', directory: dirs[0], json };
  }
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
  if (validate) return { kind: 'validate', config, sets };
  return { kind: 'run', config, sets };
}
