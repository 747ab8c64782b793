// Debian's Chromium for the browser tests, driven by playwright-core (no browser download: Playwright's
// own download fails on a closed network). ensure-chromium.sh installs the package on a fresh machine
// (CI) the first time, with apt-get; later runs find /usr/bin/chromium and start at once.
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { runProcess } from '../helpers/process.ts';

const ENSURE = fileURLToPath(new URL('./ensure-chromium.sh', import.meta.url));

/** How long a test's setup may take to install Chromium on a fresh machine (apt-get update and install). */
export const CHROMIUM_SETUP_TIMEOUT_MS = 10 * 60_000;

/**
 * Flags for a machine without a GPU or outside network, as root: without the background-networking ones
 * Chromium keeps opening connections the network refuses. --headless and --no-sandbox come from Playwright.
 */
const FLAGS = [
  '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** The path of Chromium, installed first if missing. */
export async function ensureChromium(): Promise<string> {
  const run = await runProcess('bash', [ENSURE]);
  if (run.code !== 0) throw new Error(`test/browser/ensure-chromium.sh failed (exit ${run.code}):\n${run.stderr.slice(-3000)}`);
  return run.stdout.trim().split('\n').pop() ?? '';
}

/** A headless Chromium with a fresh profile in `userDataDir` (an empty directory of the test's). */
export async function launchChromium(executablePath: string, userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath, headless: true, chromiumSandbox: false, args: FLAGS, viewport: { width: 1280, height: 800 },
  });
}
