// The page over HTTP: a real daemon (the built CLI) with a store and an API key, the known traces POSTed to
// /tracing/spans/ingest, the HTML read back. What a browser makes of it: test/browser/page.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../test/helpers/daemon.ts';
import { STORE_DAEMON_CONFIG } from '../../../test/helpers/store-fixture.ts';
import { AGENT, FAILED, HOSTILE, HOSTILE_INPUT, PAGE_SPANS, SCRIPT_NAME, SPANS_PER_TRACE } from '../../../test/helpers/page-traces.ts';

const KEY = 'page-test-key';
// The store daemon's config, with a key the page must ask for.
const CONFIG = STORE_DAEMON_CONFIG.replace('endpoint: 127.0.0.1:0', `endpoint: 127.0.0.1:0\n    api_keys: [${KEY}]`);

let daemon: Daemon;
let base: string;

async function get(path: string, authorization: string | null = `ApiKey ${KEY}`): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(base + path, { headers: authorization === null ? {} : { authorization } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The trace ids of the list's rows, in order. */
function rowIds(text: string): string[] {
  return [...text.matchAll(/<tr data-trace-id="([0-9a-f]{32})">/g)].map((m) => m[1]);
}

beforeAll(async () => {
  daemon = await startDaemon(CONFIG);
  base = daemon.url('http');
  const post = await fetch(`${base}/tracing/spans/ingest`, {
    method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ spans: PAGE_SPANS }),
  });
  expect(post.status).toBe(202);
  // Reads follow the store's commits (read-api.md §2.5): wait until the page lists every trace.
  const deadline = Date.now() + 20_000;
  while (rowIds((await get('/')).text).length < Object.keys(SPANS_PER_TRACE).length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
afterAll(async () => {
  await daemon?.stop();
});

describe('the page on GET /', () => {
  it('lists the recent traces, newest first, with type, duration, status, tokens and cost', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(rowIds(r.text)).toEqual([HOSTILE, FAILED, AGENT]);
    const agentRow = r.text.slice(r.text.indexOf(`<tr data-trace-id="${AGENT}">`));
    expect(agentRow).toMatch(/travel-agent<\/a>[\s\S]*?<td>agent<\/td>[\s\S]*?2\.5 s[\s\S]*?class="ok">ok<[\s\S]*?>3<\/td><td class="num">70<\/td><td class="num">\$0\.0004</);
    expect(r.text).toMatch(new RegExp(`<tr data-trace-id="${FAILED}">[\\s\\S]*?400 ms[\\s\\S]*?class="error">error<`));
    // The same page under the API's path aliases.
    expect(rowIds((await get('/api/?x=1')).text)).toEqual([HOSTILE, FAILED, AGENT]);
  });

  it('shows span content as text, never as markup', async () => {
    for (const path of ['/', `/?trace=${HOSTILE}`, `/?q=${encodeURIComponent(SCRIPT_NAME)}`]) {
      const { text } = await get(path);
      expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(text).not.toContain(SCRIPT_NAME);
      expect(text).not.toContain('<img');
      expect(text.match(/<script/gi)).toBeNull();
    }
    const trace = (await get(`/?trace=${HOSTILE}`)).text;
    expect(trace).toContain('&quot;\\&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&quot;');
    expect(trace).not.toContain(HOSTILE_INPUT);
  });

  it('shows one trace as a tree with inputs, outputs, metrics and attributes (?trace=, any trace-id form)', async () => {
    const dashed = `${AGENT.slice(0, 8)}-${AGENT.slice(8, 12)}-${AGENT.slice(12, 16)}-${AGENT.slice(16, 20)}-${AGENT.slice(20)}`;
    const r = await get(`/?trace=${dashed}`);
    expect(r.status).toBe(200);
    const items = [...r.text.matchAll(/<li class="span" data-span-id="([0-9a-f]{16})" data-depth="(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
    expect(items).toEqual([['a000000000000001', 0], ['a000000000000002', 1], ['a000000000000003', 1]]);
    expect(r.text).toContain('<section class="part inputs"><h4>inputs</h4><pre>{\n  &quot;question&quot;: &quot;capital of France?&quot;');
    expect(r.text).toContain('&quot;completion&quot;: &quot;It is Paris.&quot;');
    expect(r.text).toMatch(/<section class="part metrics">[\s\S]*?&quot;total&quot;: 42/);
    expect(r.text).toMatch(/<section class="part attributes">[\s\S]*?&quot;model&quot;: &quot;gpt-4o-mini&quot;/);
    expect(r.text).toContain('3 spans · tokens 70 · cost $0.0004');
  });

  it('answers 404 for a trace not stored and 400 for a value that is no trace id', async () => {
    const missing = await get('/?trace=0123456789abcdef0123456789abcdef');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No trace 0123456789abcdef0123456789abcdef is stored.');
    const bad = await get('/?trace=%3Cb%3Ex');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('&quot;&lt;b&gt;x&quot; is not a trace id.');
  });

  it('searches span names (any case, any span of the trace) and trace ids (?q=)', async () => {
    expect(rowIds((await get('/?q=OPENAI')).text)).toEqual([AGENT]);
    expect(rowIds((await get(`/?q=${FAILED}`)).text)).toEqual([FAILED]);
    expect(rowIds((await get('/?q=script')).text)).toEqual([HOSTILE]);
    const none = await get('/?q=nothing-like-this');
    expect(rowIds(none.text)).toEqual([]);
    expect(none.text).toContain('No traces match.');
    expect(none.text).toContain('value="nothing-like-this"');
  });

  it('requires the receiver\'s key, as every route (HTTP Basic with the key as password works in a browser)', async () => {
    const refused = await get('/', null);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Basic');
    expect((await get('/', 'ApiKey wrong')).status).toBe(401);
    const basic = await get('/', `Basic ${Buffer.from(`me:${KEY}`).toString('base64')}`);
    expect(basic.status).toBe(200);
    expect(rowIds(basic.text)).toHaveLength(3);
  });

  it('allows GET and HEAD only', async () => {
    const post = await fetch(`${base}/`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/`, { method: 'HEAD', headers: { authorization: `ApiKey ${KEY}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
