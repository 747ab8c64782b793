// Captures what real LLM SDKs send: each SDK makes one chat call against a local OpenAI-compatible server
// and exports its spans to a local capture server, whose bodies are decoded with tracehop's OTLP codec
// and written as OTLP/JSON fixtures (test/fixtures/sdk-payloads/<sdk>.otlp.json). The prompt and the reply
// carry the markers SEEDSLOT1..SEEDSLOT3 wherever the SDK puts them: the redact corpus test fills them
// with seeded secrets or with clean text (processors/redact/corpus.test.ts).
//
// Run again after bumping an SDK: `node test/llm-sdks/capture.ts` (Python SDKs from
// test/python/requirements-llm.txt, set up on first use).
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { decodeExportRequest } from '../helpers/otlp-decode.ts';
import { decodeExportRequestJson } from '../../codec/otlp/decode-json.ts';
import { encodeExportRequestJson } from '../../codec/otlp/encode-json.ts';
import type { Span } from '../../model/span.ts';
import { runProcess } from '../helpers/process.ts';
import { PYTHON_DIR, venvPython } from '../python/venv.ts';
import { startFakeOpenAI } from './fake-openai.ts';
import { vercelChatCall } from './vercel-call.ts';

import { CAPTURE_ANSWER, CAPTURE_QUESTION, CAPTURED_SDKS, FIXTURES_DIR } from './payloads.ts';

interface Received { path: string; spans: Span[] }

/** Every OTLP request one SDK run sends, decoded; `run` is given the receiver's base URL. */
async function capture(run: (baseUrl: string) => Promise<void>): Promise<Received[]> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      const json = (req.headers['content-type'] ?? '').includes('json');
      received.push({ path: req.url ?? '', spans: (json ? decodeExportRequestJson(body) : decodeExportRequest(body)).spans });
      // An empty ExportTraceServiceResponse: full success.
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return received;
}

async function python(python: string, script: string, args: string[]): Promise<void> {
  const run = await runProcess(python, [`${PYTHON_DIR}${script}`, ...args]);
  if (run.code !== 0) throw new Error(`${script} ${args[0]} failed (exit ${run.code}):\n${run.stderr.slice(-3000)}`);
}

/** Captures every SDK of CAPTURED_SDKS; returns its spans and the paths it posted to. */
export async function captureAll(): Promise<Map<string, { paths: string[]; spans: Span[] }>> {
  const py = await venvPython('requirements-llm.txt');
  const openai = await startFakeOpenAI({ content: CAPTURE_ANSWER });
  const out = new Map<string, { paths: string[]; spans: Span[] }>();
  try {
    for (const sdk of CAPTURED_SDKS) {
      const received = await capture(async (base) => {
        if (sdk === 'vercel-semconv' || sdk === 'vercel-legacy') {
          await vercelChatCall({ tracesUrl: `${base}/v1/traces`, openaiUrl: openai.url, integration: sdk === 'vercel-semconv' ? 'semconv' : 'legacy', question: CAPTURE_QUESTION });
        } else if (sdk === 'langfuse-manual') {
          await python(py, 'send_langfuse.py', ['--base-url', base, '--secret-key', 'sk-lf-capture']);
        } else {
          await python(py, 'chat_call.py', [sdk, base, openai.url, CAPTURE_QUESTION]);
        }
      });
      out.set(sdk, { paths: [...new Set(received.map((r) => r.path))], spans: received.flatMap((r) => r.spans) });
    }
  } finally {
    await openai.close();
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await mkdir(FIXTURES_DIR, { recursive: true });
  for (const [sdk, { paths, spans }] of await captureAll()) {
    await writeFile(`${FIXTURES_DIR}${sdk}.otlp.json`, JSON.stringify(JSON.parse(encodeExportRequestJson(spans)), null, 1) + '\n');
    console.log(`${sdk}: ${spans.length} spans via ${paths.join(', ')}`);
  }
}
