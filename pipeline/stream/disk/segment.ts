// A segment file and the index of its records, kept in memory: where each record starts, its seq, and
// running span counts, so a reader can seek and `stats()` can count without touching the disk.
import path from 'node:path';

const NAME = /^(\d{20})\.seg$/;

/** Segments are named by the seq of the first record written to them, so names sort in seq order. */
export function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(20, '0')}.seg`;
}

/** The seq in a segment file name, or undefined when the name is not a segment's. */
export function parseSegmentName(name: string): number | undefined {
  const m = NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

export class Segment {
  readonly name: string;
  readonly path: string;
  /** The seq in the name: every record in this file has a seq >= it and < the next segment's. */
  readonly baseSeq: number;
  readonly seqs: number[] = [];
  readonly offsets: number[] = [];
  readonly lengths: number[] = [];
  /** Spans in records 0..i. */
  readonly spanTotals: number[] = [];
  /** Bytes of whole records: where the next record goes. */
  size = 0;

  constructor(directory: string, baseSeq: number) {
    this.baseSeq = baseSeq;
    this.name = segmentName(baseSeq);
    this.path = path.join(directory, this.name);
  }

  get count(): number {
    return this.seqs.length;
  }

  get firstSeq(): number {
    return this.seqs.length > 0 ? this.seqs[0] : Infinity;
  }

  get lastSeq(): number {
    return this.seqs.length > 0 ? this.seqs[this.seqs.length - 1] : -Infinity;
  }

  add(seq: number, offset: number, length: number, spans: number): void {
    const n = this.seqs.length;
    this.seqs.push(seq);
    this.offsets.push(offset);
    this.lengths.push(length);
    this.spanTotals.push((n > 0 ? this.spanTotals[n - 1] : 0) + spans);
    this.size = offset + length;
  }

  spansAt(i: number): number {
    return this.spanTotals[i] - (i > 0 ? this.spanTotals[i - 1] : 0);
  }

  /** Index of the first record with seq >= `seq` (count when none). */
  indexFrom(seq: number): number {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Records, spans and bytes from index `i` to the end. */
  countFrom(i: number): { records: number; spans: number; bytes: number } {
    const n = this.seqs.length;
    if (i >= n) return { records: 0, spans: 0, bytes: 0 };
    return {
      records: n - i,
      spans: this.spanTotals[n - 1] - (i > 0 ? this.spanTotals[i - 1] : 0),
      bytes: this.size - this.offsets[i],
    };
  }
}
