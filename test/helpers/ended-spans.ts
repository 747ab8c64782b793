// A span processor that only collects the spans a tracer ends, so that a test exports them itself with a
// real OpenTelemetry exporter and sees each export's outcome (an SDK's batch processor would hide it).
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';

export class EndedSpans implements SpanProcessor {
  private ended: ReadableSpan[] = [];

  /** The spans ended since the last call. */
  take(): ReadableSpan[] {
    const spans = this.ended;
    this.ended = [];
    return spans;
  }

  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
