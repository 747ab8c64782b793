// The most recent records, kept decoded in memory so readers that keep up (the usual case) never read
// the disk. A contiguous run of the latest visible records, bounded in bytes; older ones are on disk.
import type { Span } from '../../../model/span.ts';

export class RecentRecords {
  private seqs: number[] = [];
  private spans: Span[][] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private readonly budget: number;

  constructor(budgetBytes: number) {
    this.budget = budgetBytes;
  }

  get firstSeq(): number {
    return this.head < this.seqs.length ? this.seqs[this.head] : Infinity;
  }

  push(seq: number, spans: Span[], size: number): void {
    this.seqs.push(seq);
    this.spans.push(spans);
    this.sizes.push(size);
    this.bytes += size;
    while (this.bytes > this.budget && this.head < this.seqs.length) this.dropHead();
    this.compact();
  }

  /** Forgets records every reader has committed. */
  dropThrough(seq: number): void {
    while (this.head < this.seqs.length && this.seqs[this.head] <= seq) this.dropHead();
    this.compact();
  }

  /** Records from the first with seq >= `from`: whole records, at least one, about `maxSpans` spans.
   *  Undefined when `from` is older than what is held (the caller reads the disk). */
  take(from: number, maxSpans: number): { seq: number; spans: Span[] }[] | undefined {
    if (from < this.firstSeq) return undefined;
    let lo = this.head;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    const out: { seq: number; spans: Span[] }[] = [];
    let total = 0;
    for (let i = lo; i < this.seqs.length; i++) {
      const n = this.spans[i].length;
      if (out.length > 0 && total + n > maxSpans) break;
      out.push({ seq: this.seqs[i], spans: this.spans[i] });
      total += n;
    }
    return out;
  }

  private dropHead(): void {
    this.bytes -= this.sizes[this.head];
    this.spans[this.head] = undefined as unknown as Span[];
    this.head++;
  }

  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.seqs.length) return;
    this.seqs = this.seqs.slice(this.head);
    this.spans = this.spans.slice(this.head);
    this.sizes = this.sizes.slice(this.head);
    this.head = 0;
  }
}
