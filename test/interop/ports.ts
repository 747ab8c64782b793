// Free loopback ports for peers started by tests, so parallel runs and a developer's own Collector
// (4317/4318) never collide. The port is released before the peer binds it, so it is drawn from below
// Linux's ephemeral range (32768-60999 by default): the kernel never hands those out as the source port
// of an outgoing connection, which under load (parallel suites, a benchmark) took a port bound to 0 and
// released a moment earlier.
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_767;

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    if (await tryPort(port)) return port;
  }
  throw new Error(`no free loopback port found in ${LOW}-${HIGH}`);
}
