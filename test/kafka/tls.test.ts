// The exporter's tls options against the broker's two SSL listeners (broker.ts makes a throwaway CA, a
// server certificate for 127.0.0.1 and a client certificate): trusting the CA delivers; a certificate the
// config does not trust is a start-up error that says so, not a retry loop. A missing client certificate
// where one is required cannot be told apart from a dropped connection: the broker answers the handshake
// with TLS 1.3's certificate_required alert and @platformatic/kafka reports only "Connection closed", so
// the exporter treats the broker as unreachable: it warns, delivers nothing, and the spans wait.
import { describe, expect, inject, it } from 'vitest';
import { KafkaExporter } from '../../exporters/kafka/kafka-exporter.ts';
import { RetryableError, StartupError } from '../../pipeline/errors.ts';
import { context, createTopic, expectDelivery, kafkaConfig, makeSpans, recordingLogger, startupError, uniqueTopic } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const tls = inject('kafkaTls');

describe('kafka exporter with TLS', () => {
  it('delivers when the config trusts the broker\'s CA (ca_file)', async () => {
    await expectDelivery(bootstrap, tls.bootstrap, { tls: { ca_file: tls.ca } }, 'tls');
  });

  it('delivers with a client certificate where the listener requires one (cert_file, key_file)', async () => {
    await expectDelivery(bootstrap, tls.mtlsBootstrap, { tls: { ca_file: tls.ca, cert_file: tls.clientCert, key_file: tls.clientKey } }, 'mtls');
  });

  it('delivers without verification when insecure_skip_verify is set', async () => {
    await expectDelivery(bootstrap, tls.bootstrap, { tls: { insecure_skip_verify: true } }, 'tls_insecure');
  });

  it('a broker certificate the config does not trust is a start-up error', async () => {
    // `{}`: the system's CAs, which do not include the test CA.
    const error = await startupError(tls.bootstrap, { tls: {} });
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/refused our credentials or certificate/);
  });

  it('no client certificate where the listener requires one: unreachable, nothing delivered, the spans wait', async () => {
    const topic = uniqueTopic('mtls_refused');
    await createTopic(bootstrap, topic, 1);
    const { logger, lines } = recordingLogger();
    const exporter = new KafkaExporter(kafkaConfig({ brokers: [tls.mtlsBootstrap], topic, tls: { ca_file: tls.ca }, timeout: '5s' }), context(logger));
    await exporter.start();
    const error = await exporter.export(makeSpans(1, 2)).then(() => undefined, (e: unknown) => e);
    await exporter.shutdown();
    expect(error).toBeInstanceOf(RetryableError);
    expect(lines.some((l) => l.level === 'warn' && /unreachable/.test(String(l.msg)))).toBe(true);
  });
});
