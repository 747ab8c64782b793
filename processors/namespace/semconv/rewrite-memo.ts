// Target keys of the rows that rewrite a source key's path (prefix rows), kept by source key for one
// processor (see FamilyRunner).
const MEMO_SIZE = 1024;

export class RewriteMemo {
  private readonly targets = new Map<string, string>();
  private readonly rewrite: (key: string) => string;

  constructor(rewrite: (key: string) => string) {
    this.rewrite = rewrite;
  }

  /** `rewrite(key)`, the same string as last time for a key seen before. Bounded: cleared when full. */
  of(key: string): string {
    let target = this.targets.get(key);
    if (target === undefined) {
      target = this.rewrite(key);
      if (this.targets.size >= MEMO_SIZE) this.targets.clear();
      this.targets.set(key, target);
    }
    return target;
  }
}
