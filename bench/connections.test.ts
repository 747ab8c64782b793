import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { connectionsByProcess } from './connections.ts';

describe('connections by process', () => {
  it('counts the connections a process holds on a listening port, not its clients\' ends', async () => {
    const server = createServer(() => {});
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const clients: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const accepted = once(server, 'connection');
        const client = connect(port, '127.0.0.1');
        clients.push(client);
        await Promise.all([once(client, 'connect'), accepted]);
      }
      // This process holds both ends: only the server's three have the port as their local port.
      expect(connectionsByProcess([process.pid], port)).toEqual([3]);
      // A process that is gone holds none.
      expect(connectionsByProcess([2 ** 22 + 1], port)).toEqual([0]);
    } finally {
      for (const c of clients) c.destroy();
      server.close();
    }
  });
});
