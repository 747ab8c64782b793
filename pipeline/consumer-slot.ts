// What a receiver holds instead of one graph's consumer. A reload builds the next graph and points the
// slot of every receiver it keeps at that graph's consumer: the receiver keeps its sockets, and each
// request goes to whichever graph is current when it makes the call (docs/decisions/0660).
import type { Refusal, RefusedError } from './errors.ts';
import type { IngestConsumer } from './component.ts';
import type { WorkingBatch } from '../model/batch.ts';

export class ConsumerSlot implements IngestConsumer {
  target: IngestConsumer;

  constructor(target: IngestConsumer) {
    this.target = target;
  }

  admit(): Refusal | undefined {
    return this.target.admit();
  }

  waitForExporters(): Promise<void> | undefined {
    return this.target.waitForExporters();
  }

  consume(batch: WorkingBatch, wireBytes?: number): Promise<RefusedError | undefined> {
    return this.target.consume(batch, wireBytes);
  }
}
