// Counting the garbage collector's events and main-thread pauses from the lines V8 prints with
// --trace-gc (to the process's stdout), for bench/daemon-ab.ts.

/** Scavenges and mark-compacts; the other lines of --trace-gc (and anything else on stdout) are not events. */
const EVENT = /Scavenge|Mark-Compact/;
/** `..., 4.5 (7.0) MB, pooled: 0 MB, 1.46 / 0.00 ms ...`: the pause is the first of the two times. */
const PAUSE = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;

/**
 * One line's pause in ms, or undefined for a line that is not a GC event. Throws for an event line whose
 * pause it cannot read: a V8 that prints another format must stop the comparison, not count its pauses
 * as 0 ms.
 */
export function gcPauseMs(line: string): number | undefined {
  if (!EVENT.test(line)) return undefined;
  const m = PAUSE.exec(line);
  if (m === null) throw new Error(`cannot read the pause of this --trace-gc line: ${line}`);
  return Number(m[1]);
}

/** GC events and pause milliseconds so far, fed line by line (startTracehop's `onStdoutLine`). */
export class GcTally {
  events = 0;
  pauseMs = 0;
  /** The first line that could not be read: kept, since a line handler must not throw (see `check`). */
  private failure: Error | undefined;

  add(line: string): void {
    try {
      const ms = gcPauseMs(line);
      if (ms === undefined) return;
      this.events++;
      this.pauseMs += ms;
    } catch (err) {
      this.failure ??= err as Error;
    }
  }

  /** Throws the first unreadable line's error, if there was one. */
  check(): void {
    if (this.failure) throw this.failure;
  }
}
