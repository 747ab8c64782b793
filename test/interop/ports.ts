// Free loopback ports for peers started by tests, so parallel runs and a developer's own Collector
// (4317/4318) never collide. The port is released before the peer binds it: a small race that a
// retry-free test accepts, since the kernel does not hand the same ephemeral port out again at once.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no port assigned'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
