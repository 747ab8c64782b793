// A local OpenAI-compatible server for the real-SDK tests: answers every chat completion request with one
// fixed reply (the SDKs under test are clients; what they trace of the call is what the tests check).
import { createServer, type Server } from 'node:http';

export interface ChatReply {
  content: string;
}

export interface FakeOpenAI {
  /** The base URL an SDK takes, ending in `/v1`. */
  url: string;
  close(): Promise<void>;
}

function completion(reply: ChatReply): Record<string, unknown> {
  return {
    id: 'chatcmpl-same-call', object: 'chat.completion', created: 1776363498, model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 21, completion_tokens: 1, total_tokens: 22 },
  };
}

export async function startFakeOpenAI(reply: ChatReply): Promise<FakeOpenAI> {
  const server: Server = createServer((req, res) => {
    // The request is read to its end (not looked at) before the reply.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(reply)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
