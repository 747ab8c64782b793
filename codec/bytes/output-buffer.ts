// What the encoders that write into one growing buffer share: the span record's JSON writer
// (record/) and the OTLP protobuf writer (otlp/).

/** Node's Buffer has this native writer (what `write(text, offset, 'utf8')` dispatches to, minus the
 *  argument parsing); it returns the bytes written and never cuts a character in half. */
export interface Utf8WriteBuffer extends Buffer {
  utf8Write(text: string, offset: number): number;
}

/** The largest buffer a batch starts with: after a batch of one huge span, a guess for 1024 spans
 *  would be gigabytes, which a host with strict overcommit refuses (docs/performance.md, round 0470). Beyond it the
 *  writer grows by doubling. */
const MAX_FIRST_GUESS = 64 * 1024 * 1024;

/**
 * How big to make the next batch's buffer, learned from the last batch: its bytes per span with a
 * quarter of headroom, never below 256, so that the buffer rarely has to grow by copying.
 */
export class SizeGuess {
  private perSpan: number;

  constructor(initialPerSpan: number) {
    this.perSpan = initialPerSpan;
  }

  /** Bytes to start a buffer with for `spans` spans and `extra` bytes more, capped. */
  bytesFor(spans: number, extra = 0): number {
    return Math.min(spans * this.perSpan + extra, MAX_FIRST_GUESS);
  }

  /** A batch of `spans` spans took `bytes`. */
  learn(bytes: number, spans: number): void {
    if (spans > 0) this.perSpan = Math.max(256, Math.ceil((bytes / spans) * 1.25));
  }
}
