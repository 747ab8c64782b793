// CPU time and memory of a process (with the processes it started) from /proc (Linux), so that tracehop
// and its peer are measured the same way from outside.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/PID/stat after the command name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * `pid` and every process below it: tracehop with `service.workers` above 1 is a primary and its
 * workers, and its cost is theirs together. A process that ends while being read is left out.
 */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const parent = Number(statFields(Number(name))[1]);
      parents.set(parent, [...parents.get(parent) ?? [], Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...parents.get(tree[i]) ?? []);
  return tree;
}

/** User + system CPU seconds the process and the processes below it (processTree) have used so far. */
export function cpuSeconds(pid: number): number {
  let total = 0;
  for (const seconds of cpuByProcess(pid).values()) total += seconds;
  return total;
}

/** The CPU seconds of each process of the tree, by pid (the first is `pid` itself). */
export function cpuByProcess(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const each of processTree(pid)) {
    try {
      const fields = statFields(each);
      out.set(each, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Current resident set size in MiB of the process and the processes below it, summed. (Not a peak from
 *  VmHWM: the processes of a tree reach theirs at different times, so a sum of them overstates.) */
export function rssMiB(pid: number): number {
  let rss = 0;
  for (const each of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${each}/status`, 'utf8');
      const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      rss += kib('VmRSS') / 1024;
    } catch {
      // gone meanwhile
    }
  }
  return rss;
}

/** `taskset -c N` when it exists and the machine has at least two CPUs; else no pinning. */
export function pinning(): { available: boolean; prefix(cpu: number): string[] } {
  let available = false;
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    available = (readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm) ?? []).length >= 2;
  } catch {
    available = false;
  }
  return { available, prefix: (cpu) => (available ? ['taskset', '-c', String(cpu)] : []) };
}
