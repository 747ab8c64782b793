// A local OpenAI-compatible server for the real-SDK tests: answers every chat completion request with one
// fixed reply (the SDKs under test are clients; what they trace of the call is what the tests check).
import { createServer, type Server } from 'node:http';

export interface ChatReply {
  content: string;
  model?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface FakeOpenAI {
  /** The base URL an SDK takes, ending in `/v1`. */
  url: string;
  /** The request bodies received, parsed. */
  requests: unknown[];
  close(): Promise<void>;
}

export function completion(reply: ChatReply): Record<string, unknown> {
  return {
    id: 'chatcmpl-same-call', object: 'chat.completion', created: 1776363498, model: reply.model ?? 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
    usage: reply.usage ?? { prompt_tokens: 21, completion_tokens: 1, total_tokens: 22 },
  };
}

export async function startFakeOpenAI(reply: ChatReply): Promise<FakeOpenAI> {
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try { requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch { requests.push(undefined); }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(reply)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
