// vitest global setup of the `kafka` project: one real broker for every Kafka test file, stopped and
// removed at the end whatever happened. Tests read the address with `inject('kafkaBootstrap')`; the
// outage test also gets the work dir, to stop and restart the same broker (broker.ts keeps its pid in
// the work dir, so the teardown stops whichever process runs it then).
import type { TestProject } from 'vitest/node';
import { startBroker, stopBroker } from './broker.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBootstrap: string;
    /** The same broker's SASL_PLAINTEXT listener (broker.ts SASL_USER / SASL_PASSWORD). */
    kafkaSaslBootstrap: string;
    kafkaWorkDir: string;
    /** The same broker's SSL listeners and the CA and client certificate that go with them. */
    kafkaTls: { bootstrap: string; mtlsBootstrap: string; ca: string; clientCert: string; clientKey: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const broker = await startBroker({ log: (line) => process.stderr.write(`[kafka] ${line}\n`) });
  process.stderr.write(`[kafka] ready on ${broker.bootstrap} after ${Date.now() - started} ms\n`);
  project.provide('kafkaBootstrap', broker.bootstrap);
  project.provide('kafkaSaslBootstrap', broker.saslBootstrap);
  project.provide('kafkaWorkDir', broker.workDir);
  project.provide('kafkaTls', {
    bootstrap: broker.tlsBootstrap, mtlsBootstrap: broker.mtlsBootstrap,
    ca: broker.tls.ca, clientCert: broker.tls.clientCert, clientKey: broker.tls.clientKey,
  });
  return async () => {
    await stopBroker(broker.workDir, { remove: true });
  };
}
