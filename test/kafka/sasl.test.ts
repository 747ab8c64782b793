// The exporter's SASL options against the broker's SASL_PLAINTEXT listener: every mechanism delivers
// with the right password, and a wrong password is a start-up error, not a silent retry loop.
import { describe, expect, inject, it } from 'vitest';
import { SASL_MECHANISMS } from '../../exporters/kafka/config.ts';
import { StartupError } from '../../pipeline/errors.ts';
import { SASL_PASSWORD, SASL_USER } from './broker.ts';
import { expectDelivery, startupError } from './helpers.ts';

const bootstrap = inject('kafkaBootstrap');
const saslBootstrap = inject('kafkaSaslBootstrap');

describe('kafka exporter with SASL', () => {
  it.each(SASL_MECHANISMS)('%s: delivers through the SASL listener', async (mechanism) => {
    await expectDelivery(bootstrap, saslBootstrap, { sasl: { mechanism, username: SASL_USER, password: SASL_PASSWORD } }, `sasl_${mechanism.replaceAll('-', '_')}`);
  });

  it('a wrong password is a start-up error', async () => {
    const error = await startupError(saslBootstrap, { sasl: { mechanism: 'scram-sha-256', username: SASL_USER, password: 'wrong' } });
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toMatch(/refused our credentials or certificate.*SASL authentication failed/);
  });
});
