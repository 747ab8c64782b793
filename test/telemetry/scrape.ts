// Scrapes a daemon's /metrics and parses the answer with the Prometheus project's own text-format parser
// (prometheus_client, in a venv made by test/python/setup-venv.sh), so the tests read the metrics as
// Prometheus would, and a malformed exposition fails them.
import { runProcess } from '../helpers/process.ts';
import { PYTHON_DIR, venvPython } from '../python/venv.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number | null;
}

export interface Scrape {
  /** Family name (counters without `_total`, as the parser names them) to its type. */
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name whose labels include `labels`; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | null | undefined;
  /** Every sample with this name whose labels include `labels`. */
  all(name: string, labels?: Record<string, string>): Sample[];
}

/** The venv's python (made on first use: a download from PyPI, tens of seconds). */
export async function metricsPython(): Promise<string> {
  return venvPython('requirements-metrics.txt');
}

export function parseExposition(python: string, text: string): Promise<Scrape> {
  return runProcess(python, [`${PYTHON_DIR}parse_metrics.py`], { input: text }).then(({ code, stdout, stderr }) => {
    if (code !== 0) throw new Error(`the Prometheus parser refused the exposition (${code}):\n${stderr}\n--- exposition ---\n${text}`);
    const { families } = JSON.parse(stdout) as { families: Array<{ name: string; type: string; samples: Sample[] }> };
    const samples = families.flatMap((f) => f.samples);
    const matches = (s: Sample, name: string, labels: Record<string, string>) =>
      s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
    return {
      types: new Map(families.map((f) => [f.name, f.type])),
      samples,
      all: (name, labels = {}) => samples.filter((s) => matches(s, name, labels)),
      value(name, labels = {}) {
        const found = samples.filter((s) => matches(s, name, labels));
        if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
        return found[0]?.value;
      },
    };
  });
}

/** GET /metrics and parse it; also returns the answer's status and Content-Type. */
export async function scrape(python: string, metricsUrl: string): Promise<Scrape & { status: number; contentType: string | null }> {
  const res = await fetch(`${metricsUrl}/metrics`);
  const text = await res.text();
  return { ...(await parseExposition(python, text)), status: res.status, contentType: res.headers.get('content-type') };
}
