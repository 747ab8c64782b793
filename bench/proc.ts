// CPU time and memory of a process from /proc (Linux), so that tracehop and its peer are measured the same
// way from outside.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Current and peak resident set size in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
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
