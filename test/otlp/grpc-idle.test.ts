// An OTLP/gRPC connection that carries no call for keepalive.server_parameters.max_connection_idle is
// closed by the server (GOAWAY), so idle clients cannot hold sockets forever; a connection in use is not.
import { connect, type ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportRequestEncoder } from '../../codec/otlp/index.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { OtlpReceiver } from '../../receivers/otlp/receiver.ts';
import { RecordingConsumer } from './helpers.ts';
import { grpcMessage, rawGrpcCall } from './raw-grpc.ts';
import { AttributeList } from '../../model/attributes/list.ts';

const consumer = new RecordingConsumer();
let receiver: OtlpReceiver;
let port: number;

beforeAll(async () => {
  receiver = new OtlpReceiver({
    protocols: { grpc: { endpoint: '127.0.0.1:0', keepalive: { server_parameters: { max_connection_idle: 300 } } } },
  }, consumer, silentLogger);
  await receiver.start();
  port = receiver.grpc!.port();
});

afterAll(async () => {
  await receiver.shutdown();
});

function closed(session: ClientHttp2Session): Promise<'goaway' | 'close'> {
  return new Promise((resolve) => {
    session.once('goaway', () => resolve('goaway'));
    session.once('close', () => resolve('close'));
  });
}

describe('otlp receiver, gRPC idle connections', () => {
  it('closes a connection that opened no call, with GOAWAY', async () => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', () => undefined);
    expect(await closed(session)).toBe('goaway');
    session.destroy();
  });

  it('still answers calls on new connections afterwards', async () => {
    const body = grpcMessage(new ExportRequestEncoder().encode([{
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'n', kind: 1, startNs: 1n, endNs: 2n,
      status: { code: 0 }, attributes: new AttributeList(),
    }]));
    expect((await rawGrpcCall(port, body)).code).toBe(0);
  });
});
