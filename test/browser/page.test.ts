// The trace page in a real headless Chromium (Debian's package, driven by playwright-core): a daemon with a
// store and the page's known traces, the list, one trace's tree, the search box and a span named
// `<script>alert(1)</script>` that must show as text. Screenshots go to the test's temp dir.
import { STORE_DAEMON_CONFIG } from '../helpers/store-fixture.ts';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, tempDir, type Daemon } from '../helpers/daemon.ts';
import {
  AGENT, FAILED, HOSTILE, HOSTILE_INPUT, PAGE_SPANS, SCRIPT_NAME, SPANS_PER_TRACE,
} from '../helpers/page-traces.ts';
import { CHROMIUM_SETUP_TIMEOUT_MS, ensureChromium, launchChromium } from './chromium.ts';

const CONFIG = STORE_DAEMON_CONFIG;

let daemon: Daemon;
let base: string;
let browser: BrowserContext;
let page: Page;
let dir: string;
/** Every dialog (an alert) the page opened: span content that ran as script would show here. */
const dialogs: string[] = [];

async function stored(traceId: string, spans: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await fetch(`${base}/tracing/spans/query`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ focus: 'span', filter: { conditions: [{ field: 'trace_id', value: traceId }] } }),
    });
    if (((await r.json()) as { count: number }).count === spans) return;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} not stored within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A screenshot of the whole page under the test's temp dir; checks it is a PNG with content. */
async function screenshot(name: string): Promise<void> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  expect((await stat(path)).size).toBeGreaterThan(1000);
  expect((await readFile(path)).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
}

const rowIds = () => page.locator('#traces tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace-id')));

beforeAll(async () => {
  const executable = await ensureChromium();
  dir = await tempDir('tracehop-page-');
  daemon = await startDaemon(CONFIG);
  base = daemon.url('http');
  const post = await fetch(`${base}/tracing/spans/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spans: PAGE_SPANS }),
  });
  expect(post.status).toBe(202);
  for (const [traceId, spans] of Object.entries(SPANS_PER_TRACE)) await stored(traceId, spans);
  browser = await launchChromium(executable, join(dir, 'profile'));
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}, CHROMIUM_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('the trace page in Chromium', () => {
  it('lists the stored traces, newest first, the script-named span as text', async () => {
    await page.goto(`${base}/`);
    expect(await page.title()).toBe('Recent traces · tracehop');
    expect(await rowIds()).toEqual([HOSTILE, FAILED, AGENT]);
    const agent = page.locator(`tr[data-trace-id="${AGENT}"] td`);
    expect(await agent.allInnerTexts()).toEqual([`travel-agent\n${AGENT}`, 'agent', '2026-11-20T10:00:00Z', '2.5 s', 'ok', '3', '70', '$0.0004']);
    expect(await page.locator(`tr[data-trace-id="${FAILED}"] .error`).innerText()).toBe('error');
    expect(await page.locator(`tr[data-trace-id="${HOSTILE}"] td.name a`).textContent()).toBe(SCRIPT_NAME);
    expect(await page.locator('script').count()).toBe(0);
    await screenshot('list');
  });

  it('opens one trace as a tree; a span\'s details show its inputs, outputs, metrics and attributes', async () => {
    await page.goto(`${base}/`);
    await page.locator(`tr[data-trace-id="${AGENT}"] td.name a`).click();
    await page.waitForURL(`${base}/?trace=${AGENT}`);
    expect(await page.locator('#trace-name').innerText()).toBe('travel-agent');
    const spans = page.locator('#spans > li.span');
    expect(await spans.evaluateAll((items) => items.map((li) => [li.querySelector('.name')!.textContent, li.getAttribute('data-depth')])))
      .toEqual([['travel-agent', '0'], ['openai.chat', '1'], ['openai.chat', '1']]);
    // A child sits further right than its parent.
    const [root, child] = [await spans.nth(0).boundingBox(), await spans.nth(1).locator('summary').boundingBox()];
    expect(child!.x).toBeGreaterThan(root!.x);
    const second = spans.nth(2);
    expect(await second.locator('section.inputs pre').isVisible()).toBe(false);
    await second.locator('summary').click();
    expect(JSON.parse(await second.locator('section.inputs pre').innerText())).toEqual({ prompt: 'capital of France?' });
    expect(JSON.parse(await second.locator('section.outputs pre').innerText())).toEqual({ completion: 'It is Paris.' });
    expect(JSON.parse(await second.locator('section.metrics pre').innerText()).tokens).toEqual({ incremental: { prompt: 20, completion: 8, total: 28 } });
    expect(JSON.parse(await second.locator('section.attributes pre').innerText()).gen_ai).toEqual({ request: { model: 'gpt-4o-mini' } });
    await screenshot('trace');
  });

  it('shows the hostile span\'s name and inputs as text, running nothing', async () => {
    await page.goto(`${base}/?trace=${HOSTILE}`);
    expect(await page.locator('#trace-name').textContent()).toBe(SCRIPT_NAME);
    expect(await page.locator('#spans .name').textContent()).toBe(SCRIPT_NAME);
    await page.locator('#spans summary').click();
    expect(JSON.parse(await page.locator('section.inputs pre').innerText())).toEqual({ html: HOSTILE_INPUT });
    expect(await page.locator('script, img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('searches with the search box by span name and by trace id', async () => {
    await page.goto(`${base}/`);
    await page.locator('input[name=q]').fill('weather');
    await page.locator('input[name=q]').press('Enter');
    await page.waitForURL(`${base}/?q=weather`);
    expect(await rowIds()).toEqual([FAILED]);
    expect(await page.locator('input[name=q]').inputValue()).toBe('weather');
    await page.locator('input[name=q]').fill(AGENT);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(`${base}/?q=${AGENT}`);
    expect(await rowIds()).toEqual([AGENT]);
    await page.locator('input[name=q]').fill(SCRIPT_NAME);
    await page.locator('input[name=q]').press('Enter');
    await page.waitForURL(/q=%3Cscript/);
    expect(await rowIds()).toEqual([HOSTILE]);
    expect(await page.locator('input[name=q]').inputValue()).toBe(SCRIPT_NAME);
    expect(await page.locator('h2 q').textContent()).toBe(SCRIPT_NAME);
    await screenshot('search');
    expect(dialogs).toEqual([]);
  });
});
