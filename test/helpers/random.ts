// A small seeded pseudo-random generator (mulberry32) for property and fuzz tests, so that a failure
// reproduces from its seed.

/** Returns a function giving numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of `items`, chosen with `random`. */
export function pickWith<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}
