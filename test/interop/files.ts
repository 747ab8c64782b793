// Reading JSON-lines output that another process is still writing.
import { existsSync, readFileSync } from 'node:fs';

/** Complete lines only: a last line without its newline may still be being written. */
export function completeLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n');
  if (end < 0) return [];
  return text
    .slice(0, end)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Polls until `count(lines)` reaches `expected` (or more); returns the lines seen last. */
export async function waitForLines(
  path: string,
  count: (lines: string[]) => number,
  expected: number,
  timeoutMs: number,
  describe: () => string,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = completeLines(path);
    if (count(lines) >= expected) return lines;
    if (Date.now() > deadline) {
      throw new Error(
        `${path}: expected ${expected} spans within ${timeoutMs} ms, saw ${count(lines)}; ${describe()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
