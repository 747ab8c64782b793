// How many established TCP connections each process of a tree holds on a listening port, from /proc
// (Linux): with `service.workers` above 1, how the primary spread the load generator's connections
// over the workers (the `--cpus all` rows' note).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** /proc/net/tcp's state code for ESTABLISHED. */
const ESTABLISHED = '01';

/** The socket inodes of the connections established on local `port` (IPv4 and IPv6). */
function establishedInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== ESTABLISHED) continue;
      const local = fields[1];
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** For each of `pids`, the connections established on local `port` that it holds (0 for a process gone). */
export function connectionsByProcess(pids: number[], port: number): number[] {
  const inodes = establishedInodes(port);
  return pids.map((pid) => {
    let n = 0;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return 0;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) n++;
      } catch {
        // closed meanwhile
      }
    }
    return n;
  });
}
