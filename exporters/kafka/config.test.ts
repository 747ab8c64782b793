import { compatibilityPartitioner, MultipleErrors, NetworkError, ProtocolError, TimeoutError, UserError } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { validator } from '../../test/helpers/schema-validator.ts';
import { producerOptions } from './client-options.ts';
import { brokerList, checkKafkaConfig, schema, type KafkaConfig } from './config.ts';
import { classifySendError } from './send-errors.ts';

function load(raw: Record<string, unknown>): { config?: KafkaConfig; errors: string[] } {
  const data = structuredClone(raw);
  const validate = validator(schema);
  const ok = validate(data);
  return ok ? { config: data as unknown as KafkaConfig, errors: [] } : { errors: (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`) };
}

describe('kafka config', () => {
  it('fills the documented defaults', () => {
    const { config } = load({ brokers: ['127.0.0.1:9092'] });
    expect(config).toMatchObject({
      topic: 'tracehop_spans',
      client_id: 'tracehop',
      encoding: 'json',
      partition_by: 'trace',
      acks: 'all',
      idempotent: true,
      compression: 'none',
      max_message_bytes: 1_000_000,
      timeout: 10_000,
      send_retries: 3,
      send_retry_backoff: 250,
      headers: {},
      retry: { initial_interval: 1000, max_interval: 30_000, multiplier: 1.5 },
      dead_letter: { max_attempts: 10 },
    });
    expect(config!.create_topic).toBeUndefined();
    expect(config!.tls).toBeUndefined();
    expect(config!.sasl).toBeUndefined();
  });

  it('requires brokers and rejects unknown keys and values outside the enums', () => {
    expect(load({}).errors.join()).toMatch(/brokers/);
    expect(load({ brokers: ['h:1'], linger: '5ms' }).errors.join()).toMatch(/additional properties/);
    expect(load({ brokers: ['h:1'], compression: 'brotli' }).errors.join()).toMatch(/compression/);
    expect(load({ brokers: ['h:1'], encoding: 'avro' }).errors.join()).toMatch(/encoding/);
    expect(load({ brokers: ['h:1'], sasl: { mechanism: 'plain', username: 'u' } }).errors.join()).toMatch(/password/);
    expect(load({ brokers: ['no-port'] }).errors.join()).toMatch(/brokers/);
  });

  it('takes brokers as a list or one comma-separated string', () => {
    expect(brokerList(load({ brokers: 'a:1, b:2' }).config!.brokers)).toEqual(['a:1', 'b:2']);
    expect(brokerList(load({ brokers: ['a:1'] }).config!.brokers)).toEqual(['a:1']);
  });

  it('checks the rules across keys', () => {
    const problems = checkKafkaConfig(
      load({ brokers: ' , ', acks: 'leader', headers: { 'Content-Type': 'x' }, tls: { cert_file: '/c.pem' } }).config!,
    );
    expect(problems.map((p) => p.key)).toEqual(['idempotent', 'brokers', 'headers.Content-Type', 'tls']);
    expect(checkKafkaConfig(load({ brokers: ['a:1'], acks: 'leader', idempotent: false }).config!)).toEqual([]);
  });

  it('gives the client explicit, bounded retries, so an outage reaches the pipeline as a failed export', () => {
    const base = load({ brokers: ['a:1'], compression: 'zstd', sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } }).config!;
    const options = producerOptions(base);
    expect(options).toMatchObject({ idempotent: true, acks: -1, compression: 'zstd', retries: 3, retryDelay: 250, timeout: 10_000 });
    expect(options.sasl).toEqual({ mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' });
    expect(producerOptions({ ...base, send_retries: 0 }).retries).toBe(false);
    expect(producerOptions({ ...base, send_retries: 1 }).retries).toBe(2);
  });

  it('partitions like Java clients (murmur2), computing it once per run of one key object', () => {
    const partitioner = producerOptions(load({ brokers: ['a:1'] }).config!).partitioner!;
    const context = { metadata: undefined as never };
    const message = { topic: 't' };
    // Runs of one key object, keys with equal bytes in different objects, and a key-less message.
    const a = Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736');
    const keys = [a, a, a, Buffer.from('0af7651916cd43dd8448eb211c80319c'), Buffer.from(a), a, undefined, a];
    for (let i = 0; i < 200; i++) keys.push(Buffer.from(i.toString(16).padStart(32, '0')));
    for (const key of keys) {
      expect(partitioner(message, key, context)).toBe(compatibilityPartitioner(message, key));
    }
    expect(new Set(keys.slice(8).map((key) => partitioner(message, key, context))).size).toBeGreaterThan(150);
  });
});

describe('send error classification', () => {
  it('retries network trouble and timeouts, also nested in the per-attempt aggregate', () => {
    expect(classifySendError(new NetworkError('Connection refused'))).toBe('retryable');
    expect(classifySendError(new TimeoutError('Request timed out'))).toBe('retryable');
    expect(classifySendError(new MultipleErrors('produce failed 3 times.', [new NetworkError('x'), new NetworkError('y')]))).toBe('retryable');
    expect(classifySendError(new ProtocolError('NOT_LEADER_OR_FOLLOWER'))).toBe('retryable');
  });

  it('gives up records the broker refuses for what they are', () => {
    expect(classifySendError(new MultipleErrors('failed', [new ProtocolError('MESSAGE_TOO_LARGE')]))).toBe('permanent');
    expect(classifySendError(new ProtocolError('RECORD_LIST_TOO_LARGE'))).toBe('permanent');
  });

  it('names refused credentials and untrusted certificates, even under a network error', () => {
    const refused = new ProtocolError('SASL_AUTHENTICATION_FAILED');
    expect(classifySendError(new MultipleErrors('Cannot connect to any broker.', [new NetworkError('Connection failed.', { cause: refused })]))).toBe('auth');
    expect(classifySendError(new ProtocolError('TOPIC_AUTHORIZATION_FAILED'))).toBe('auth');
    expect(classifySendError(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('auth');
  });

  it('leaves the rest to the counted-attempts rule', () => {
    expect(classifySendError(new UserError('bad'))).toBe('unknown');
    expect(classifySendError(new Error('boom'))).toBe('unknown');
    expect(classifySendError(undefined)).toBe('unknown');
  });
});
