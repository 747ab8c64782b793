// The @platformatic/kafka client options a config asks for. TLS files are read here, at start, so an
// unreadable file is a start-up error and not a failure on the first batch.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { compatibilityPartitioner, ProduceAcks, type Partitioner, type ProducerOptions, type SASLOptions } from '@platformatic/kafka';
import { StartupError } from '../../pipeline/errors.ts';
import { brokerList, type KafkaAcks, type KafkaConfig, type KafkaSaslMechanism } from './config.ts';

const ACKS: Record<KafkaAcks, number> = { all: ProduceAcks.ALL, leader: ProduceAcks.LEADER, none: ProduceAcks.NO_RESPONSE };

const SASL: Record<KafkaSaslMechanism, SASLOptions['mechanism']> = {
  plain: 'PLAIN',
  'scram-sha-256': 'SCRAM-SHA-256',
  'scram-sha-512': 'SCRAM-SHA-512',
};

/** Options shared by the producer and the admin client used for the topic check. */
export interface ConnectionSettings {
  clientId: string;
  bootstrapBrokers: string[];
  connectTimeout: number;
  requestTimeout: number;
  timeout: number;
  tls?: TlsOptions;
  sasl?: SASLOptions;
}

export function connectionSettings(config: KafkaConfig): ConnectionSettings {
  const settings: ConnectionSettings = {
    clientId: config.client_id,
    bootstrapBrokers: brokerList(config.brokers),
    connectTimeout: config.timeout,
    requestTimeout: config.timeout,
    timeout: config.timeout,
  };
  if (config.tls) {
    const tls: TlsOptions = { rejectUnauthorized: !config.tls.insecure_skip_verify };
    if (config.tls.ca_file) tls.ca = readPem(config.tls.ca_file, 'tls.ca_file');
    if (config.tls.cert_file) tls.cert = readPem(config.tls.cert_file, 'tls.cert_file');
    if (config.tls.key_file) tls.key = readPem(config.tls.key_file, 'tls.key_file');
    settings.tls = tls;
  }
  if (config.sasl) {
    settings.sasl = { mechanism: SASL[config.sasl.mechanism], username: config.sasl.username, password: config.sasl.password };
  }
  return settings;
}

export function producerOptions(config: KafkaConfig): ProducerOptions<Buffer, Buffer, Buffer, Buffer> {
  return {
    ...connectionSettings(config),
    idempotent: config.idempotent,
    acks: ACKS[config.acks],
    compression: config.compression,
    // Java clients hash keys with murmur2 & 0x7fffffff; the library's default partitioner differs. Using
    // the Java-compatible one keeps a trace on the same partition as other producers would put it.
    partitioner: samePartitionPerKey(),
    autocreateTopics: false,
    // Always explicit: for an idempotent producer the client reads "unset", 0 or 1 as "retry forever",
    // which would hold an export call for the whole outage instead of letting the pipeline back off.
    // `false` is its way to say none; 1 is taken as 2 for that reason.
    retries: config.send_retries === 0 ? false : Math.max(config.send_retries, 2),
    retryDelay: config.send_retry_backoff,
  };
}

/**
 * The Java-compatible partitioner, computed once per key object: the messages of one trace share one
 * key Buffer (messages.ts), and the library's murmur2 works in BigInt arithmetic, which with `encoding:
 * json` (a message per span) was ~4% of the daemon's CPU (docs/performance.md, round 0470). Keys are never mutated.
 */
export function samePartitionPerKey(): Partitioner<Buffer, Buffer, Buffer, Buffer> {
  let lastKey: Buffer | undefined;
  let lastPartition = 0;
  return (message, key) => {
    if (key === undefined || key !== lastKey) {
      lastKey = key;
      lastPartition = compatibilityPartitioner(message, key);
    }
    return lastPartition;
  };
}

function readPem(path: string, key: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError(`kafka ${key}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}
