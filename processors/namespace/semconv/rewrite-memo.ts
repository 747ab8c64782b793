// Target keys of the rows that rewrite a source key's path (prefix rows, OpenInference messages), kept
// by source key. Spans of one instrumentation carry the same keys span after span, so a source key then
// maps to the very same target string each time: no slicing and concatenating per key and span, and the
// lookups that follow (the planned output, the fast path's key codes, the record writer's key cache)
// find a string whose hash is already computed. Measured on LLM spans of ~45 attributes with 20 message
// keys: docs/performance.md, round 0450.
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
