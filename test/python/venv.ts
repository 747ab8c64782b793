// The Python of a venv made by setup-venv.sh (on first use: a download from PyPI, tens of seconds; later
// runs reuse the cached venv). `requirements`: the file beside setup-venv.sh that pins what it holds.
import { fileURLToPath } from 'node:url';
import { runProcess } from '../helpers/process.ts';

export const PYTHON_DIR = fileURLToPath(new URL('.', import.meta.url));

/** How long a test's setup may take to make a fresh venv. */
export const VENV_SETUP_TIMEOUT_MS = 10 * 60_000;

export async function venvPython(requirements?: string): Promise<string> {
  const setup = await runProcess('bash', [`${PYTHON_DIR}setup-venv.sh`, ...(requirements ? [requirements] : [])]);
  if (setup.code !== 0) {
    // setup-venv.sh names what to install when python3, venv or pip is missing.
    throw new Error(`test/python/setup-venv.sh failed (exit ${setup.code}):\n${setup.stderr.slice(-3000)}`);
  }
  return setup.stdout.trim().split('\n').pop() ?? '';
}
