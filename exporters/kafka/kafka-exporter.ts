// The `kafka` exporter: each export call becomes keyed messages (messages.ts) sent in as few produce
// requests as the size limit allows, one request at a time so a trace's messages keep their order.
//
// Failure handling, per request:
// - broker unreachable, timeouts, leader moves: RetryableError. The pipeline backs off and calls again
//   with the same batch; the requests already acknowledged are not sent again (`resume`).
// - records the broker refuses for what they are (too large, invalid): those spans only are handed back
//   in a PermanentError, after the rest of the batch was delivered.
// - spans too large for one message on their own: likewise, without a round trip.
// - credentials or certificate refused: a start-up error at start; later, retried like an outage.
// - anything else: a plain error, which the pipeline counts toward `dead_letter.max_attempts`.
import { Producer } from '@platformatic/kafka';
import type { ComponentContext, Exporter } from '../../pipeline/component.ts';
import { PermanentError, RetryableError, StartupError } from '../../pipeline/errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { BatchLinesEncoder } from '../../codec/record/index.ts';
import type { Span } from '../../model/span.ts';
import { connectionSettings, producerOptions, type ConnectionSettings } from './client-options.ts';
import { brokerList, type KafkaConfig } from './config.ts';
import { messageHeaders, ProjectHeaders, traceEncoder } from './encoding.ts';
import { planJsonMessages, planTraceMessages, requestBounds, spansOf, type MessagePlan, type PlanOptions, type TraceEncoderFor } from './messages.ts';
import { classifySendError, describeSendError } from './send-errors.ts';
import { ensureTopic, TopicMissingError } from './topic.ts';

/** One export call in progress: kept across a retryable failure so a retry resumes where it stopped. */
interface Job {
  spans: Span[];
  plan: MessagePlan;
  bounds: number[];
  /** Next request to send. */
  next: number;
  /** Spans given up so far (too large, refused by the broker). */
  failed: Span[];
  reasons: string[];
}

type LinkState = 'starting' | 'connected' | 'retrying';

export class KafkaExporter implements Exporter {
  private readonly config: KafkaConfig;
  private readonly logger: Logger;
  private readonly planOptions: PlanOptions;
  private readonly encoder: TraceEncoderFor | undefined;
  /** The json encoding's batch buffers (see planJsonMessages). */
  private readonly lines = new BatchLinesEncoder();
  private settings: ConnectionSettings | undefined;
  private producer: Producer<Buffer, Buffer, Buffer, Buffer> | undefined;
  private topicReady = false;
  private state: LinkState = 'starting';
  private failingSince = 0;
  private resume: Job | undefined;

  constructor(config: KafkaConfig, context: ComponentContext) {
    this.config = config;
    this.logger = context.logger;
    const headers = new ProjectHeaders(messageHeaders(config.encoding, config.headers));
    this.planOptions = { topic: config.topic, headersFor: (project) => headers.for(project), maxMessageBytes: config.max_message_bytes };
    this.encoder = config.encoding === 'json' ? undefined : traceEncoder(config.encoding);
  }

  async start(): Promise<void> {
    this.settings = connectionSettings(this.config);
    try {
      await this.checkTopic();
    } catch (error) {
      if (error instanceof TopicMissingError) throw new StartupError(`kafka: ${error.message}`);
      const failure = classifySendError(error);
      if (failure === 'auth') {
        throw new StartupError(`kafka: the broker refused our credentials or certificate (check sasl / tls): ${describeSendError(error)}`, { cause: error });
      }
      if (failure !== 'retryable') {
        throw new StartupError(`kafka: checking topic "${this.config.topic}" failed: ${describeSendError(error)}`, { cause: error });
      }
      // Unreachable now: the receivers may still accept (the stream holds the spans); the topic is checked
      // again before the first delivery.
      this.markRetrying(error);
    }
    this.producer = new Producer(producerOptions(this.config));
  }

  async export(spans: Span[]): Promise<void> {
    if (spans.length === 0) return;
    const producer = this.producer;
    if (!producer) throw new Error('kafka exporter used before start()');
    if (!this.topicReady) await this.recheckTopic();

    let job = this.resume?.spans === spans ? this.resume : undefined;
    this.resume = undefined;
    job ??= this.newJob(spans);
    const { plan, bounds } = job;
    for (let r = job.next; r < bounds.length - 1; r++) {
      const from = bounds[r];
      const to = bounds[r + 1];
      try {
        const messages = from === 0 && to === plan.messages.length ? plan.messages : plan.messages.slice(from, to);
        await producer.send({ messages });
      } catch (error) {
        const failure = classifySendError(error);
        if (failure === 'permanent') {
          const refused = spansOf(plan, from, to);
          const reason = `kafka refused the records: ${describeSendError(error)}`;
          this.logger.error('kafka refused records; their spans go to dead letters', { spans: refused.length, error: reason });
          for (const span of refused) job.failed.push(span);
          job.reasons.push(reason);
          continue;
        }
        job.next = r;
        this.resume = job;
        if (failure === 'retryable' || failure === 'auth') {
          this.markRetrying(error, failure);
          throw new RetryableError(`kafka: ${describeSendError(error)}`, undefined, { cause: error });
        }
        throw new Error(`kafka: ${describeSendError(error)}`, { cause: error });
      }
      this.markConnected();
    }
    // Every request was answered: no message of this job is read again.
    job.plan.release();
    if (job.failed.length > 0) throw new PermanentError(job.reasons.join('; '), { spans: job.failed });
  }

  async shutdown(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    this.resume = undefined;
    await producer?.close();
  }

  private newJob(spans: Span[]): Job {
    const plan = this.encoder
      ? planTraceMessages(spans, this.encoder, this.planOptions)
      : planJsonMessages(spans, this.planOptions, this.lines);
    const job: Job = { spans, plan, bounds: requestBounds(plan, this.config.max_message_bytes), next: 0, failed: [], reasons: [] };
    if (plan.tooLarge.length > 0) {
      const reason = `span larger than max_message_bytes (${plan.tooLargeBytes} > ${this.config.max_message_bytes} bytes encoded as ${this.config.encoding})`;
      const first = plan.tooLarge[0];
      this.logger.error('spans too large for one Kafka message; they go to dead letters', {
        spans: plan.tooLarge.length,
        largest_bytes: plan.tooLargeBytes,
        max_message_bytes: this.config.max_message_bytes,
        trace_id: first.traceId,
        span_id: first.spanId,
      });
      for (const span of plan.tooLarge) job.failed.push(span);
      job.reasons.push(reason);
    }
    return job;
  }

  private async checkTopic(): Promise<void> {
    const check = await ensureTopic(this.settings!, this.config.topic, this.config.create_topic);
    this.topicReady = true;
    if (check.created) this.logger.info('kafka topic created', { topic: this.config.topic, partitions: check.partitions });
    this.markConnected(check.partitions);
  }

  /** Before a delivery when the broker was unreachable at start: the topic check is still owed. */
  private async recheckTopic(): Promise<void> {
    try {
      await this.checkTopic();
    } catch (error) {
      if (error instanceof TopicMissingError) {
        // Logged every time: retried forever (the spans are acknowledged and must not be dropped) until
        // an operator creates the topic.
        this.logger.error('kafka topic missing; spans wait in the stream', { topic: this.config.topic, error: error.message });
        throw new RetryableError(`kafka: ${error.message}`);
      }
      const failure = classifySendError(error);
      if (failure === 'retryable' || failure === 'auth') {
        this.markRetrying(error, failure);
        throw new RetryableError(`kafka: ${describeSendError(error)}`, undefined, { cause: error });
      }
      throw new Error(`kafka: checking topic "${this.config.topic}" failed: ${describeSendError(error)}`, { cause: error });
    }
  }

  private markConnected(partitions?: number): void {
    if (this.state === 'connected') return;
    const fields: Record<string, unknown> = { brokers: brokerList(this.config.brokers), topic: this.config.topic };
    if (partitions !== undefined) fields.partitions = partitions;
    if (this.state === 'retrying') fields.unreachable_for_ms = Date.now() - this.failingSince;
    this.state = 'connected';
    this.logger.info('kafka connected', fields);
  }

  private markRetrying(error: unknown, failure: 'retryable' | 'auth' = 'retryable'): void {
    if (this.state === 'retrying') return;
    this.state = 'retrying';
    this.failingSince = Date.now();
    const fields = { brokers: brokerList(this.config.brokers), topic: this.config.topic, error: describeSendError(error) };
    if (failure === 'auth') {
      // Credentials or certificates changed under a running exporter: retried (the spans are fine) until
      // an operator fixes the config, and said loudly.
      this.logger.error('kafka refused our credentials or certificate; spans wait in the stream and delivery is retried', fields);
    } else {
      this.logger.warn('kafka unreachable; spans wait in the stream and delivery is retried', fields);
    }
  }
}
