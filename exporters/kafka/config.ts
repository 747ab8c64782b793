// Config of the `kafka` exporter (issue 4; ARCHITECTURE.md "Exporter defaults"; span-record.md "Kafka message").
import type { DeliveryConfig, JsonSchema } from '../../pipeline/component.ts';
import { deliveryProperties, duration, integer, object, oneOf, path } from '../../pipeline/schema.ts';

export const ENCODINGS = ['json', 'otlp_proto', 'otlp_json'] as const;
export type KafkaEncoding = (typeof ENCODINGS)[number];

export const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type KafkaCompression = (typeof COMPRESSIONS)[number];

export const ACKS = ['all', 'leader', 'none'] as const;
export type KafkaAcks = (typeof ACKS)[number];

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaTlsConfig {
  /** PEM file of the CA(s) to trust instead of the system store. */
  ca_file?: string;
  /** Client certificate and key (PEM), for brokers that ask for one. */
  cert_file?: string;
  key_file?: string;
  /** Accept any server certificate. For tests only. */
  insecure_skip_verify: boolean;
}

export interface KafkaSaslConfig {
  mechanism: KafkaSaslMechanism;
  username: string;
  password: string;
}

export interface KafkaConfig extends DeliveryConfig {
  /** `host:port` bootstrap addresses: a list, or one comma-separated string (handy with `${env:...}`). */
  brokers: string[] | string;
  topic: string;
  client_id: string;
  encoding: KafkaEncoding;
  /** The message key: `trace` = the trace id (hex), so one trace stays on one partition, in order. */
  partition_by: 'trace';
  acks: KafkaAcks;
  /** Idempotent producer: the broker drops the client's own resends. Needs `acks: all`. */
  idempotent: boolean;
  compression: KafkaCompression;
  /** Largest message (and per-partition record batch) sent; larger traces are split, larger spans dead-lettered. */
  max_message_bytes: number;
  /** Milliseconds, per produce request (connect, broker acknowledgement, response). */
  timeout: number;
  /** Retries inside one export call (leader moves, a dropped connection) before it counts as failed and the
   *  pipeline's own backoff takes over. */
  send_retries: number;
  /** Milliseconds between those retries. */
  send_retry_backoff: number;
  /** Static headers added to every message. */
  headers: Record<string, string>;
  /** Create the topic at start if it is missing; absent: a missing topic is a start-up error. */
  create_topic?: { partitions: number; replication_factor: number };
  /** Absent: plaintext. `{}`: TLS with the system's CAs. */
  tls?: KafkaTlsConfig;
  sasl?: KafkaSaslConfig;
}

/** An object schema without a default: absent means "off". */
function optionalObject(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  const { default: _omitted, ...schema } = object(properties, required);
  return schema;
}

const nonEmptyString: JsonSchema = { type: 'string', minLength: 1 };

export const schema: JsonSchema = object(
  {
    brokers: {
      type: ['array', 'string'],
      items: { type: 'string', pattern: '^[^\\s,]+:[0-9]{1,5}$' },
      minItems: 1,
      minLength: 1,
    },
    // Kafka's own rule for topic names.
    topic: { type: 'string', pattern: '^[a-zA-Z0-9._-]{1,249}$', default: 'tracehop_spans' },
    client_id: { type: 'string', pattern: '^\\S+$', default: 'tracehop' },
    encoding: oneOf(ENCODINGS, 'json'),
    partition_by: oneOf(['trace'], 'trace'),
    acks: oneOf(ACKS, 'all'),
    idempotent: { type: 'boolean', default: true },
    compression: oneOf(COMPRESSIONS, 'none'),
    // Kafka's default message.max.bytes is 1048588: 1000000 leaves room for the batch framing.
    max_message_bytes: integer(1_000_000, 1024),
    send_retries: integer(3, 0),
    send_retry_backoff: duration('250ms'),
    headers: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
    create_topic: optionalObject({ partitions: integer(1, 1), replication_factor: integer(1, 1) }),
    tls: optionalObject({
      ca_file: path(),
      cert_file: path(),
      key_file: path(),
      insecure_skip_verify: { type: 'boolean', default: false },
    }),
    sasl: optionalObject(
      { mechanism: { type: 'string', enum: [...SASL_MECHANISMS] }, username: nonEmptyString, password: { type: 'string' } },
      ['mechanism', 'username', 'password'],
    ),
    ...deliveryProperties,
  },
  ['brokers'],
);

/** Header names the exporter sets on every message. */
export const RESERVED_HEADER_NAMES = ['content-type', 'tracehop-encoding'];

/** Rules across keys. */
export function checkKafkaConfig(config: KafkaConfig): Array<{ key: string; message: string }> {
  const problems: Array<{ key: string; message: string }> = [];
  if (config.idempotent && config.acks !== 'all') {
    problems.push({ key: 'idempotent', message: 'an idempotent producer needs acks: all (or set idempotent: false)' });
  }
  if (brokerList(config.brokers).length === 0) {
    problems.push({ key: 'brokers', message: 'must name at least one host:port' });
  }
  for (const name of Object.keys(config.headers ?? {})) {
    if (RESERVED_HEADER_NAMES.includes(name.toLowerCase())) {
      problems.push({ key: `headers.${name}`, message: 'is set by the exporter itself (span-record.md "Kafka message")' });
    }
  }
  if (config.tls && (config.tls.cert_file === undefined) !== (config.tls.key_file === undefined)) {
    problems.push({ key: 'tls', message: 'cert_file and key_file go together' });
  }
  return problems;
}

/** `brokers` as a list, whichever form the config used. */
export function brokerList(brokers: string[] | string): string[] {
  const list = typeof brokers === 'string' ? brokers.split(',') : brokers;
  return list.map((b) => b.trim()).filter((b) => b !== '');
}
