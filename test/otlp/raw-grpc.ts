// A gRPC client written by hand on node:http2, for requests a real gRPC library would never send: a
// message prefix (compressed flag, length) that lies, or a `grpc-encoding` that does not match.
import { connect } from 'node:http2';
import { EXPORT_PATH } from '../../receivers/otlp/grpc-server.ts';

/** One gRPC length-prefixed message: flag byte, 4-byte big-endian length, payload. */
export function grpcMessage(payload: Uint8Array, compressed = false, declaredLength = payload.length): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(compressed ? 1 : 0, 0);
  prefix.writeUInt32BE(declaredLength, 1);
  return Buffer.concat([prefix, payload]);
}

export interface RawGrpcAnswer {
  /** grpc-status from the trailers (or a trailers-only answer); undefined when the stream was reset. */
  code?: number;
  /** grpc-message, percent-decoded. */
  message?: string;
  /** RST_STREAM code, 0 when the stream ended normally. */
  rstCode?: number;
}

/** POSTs `body` (already framed) to TraceService/Export at `127.0.0.1:port` and reads the status. */
export function rawGrpcCall(port: number, body: Buffer, headers: Record<string, string> = {}): Promise<RawGrpcAnswer> {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined); // the stream's own error/close report it
  return new Promise((resolve) => {
    const request = session.request({
      ':method': 'POST', ':path': EXPORT_PATH, 'content-type': 'application/grpc', te: 'trailers', ...headers,
    });
    const answer: RawGrpcAnswer = {};
    const read = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) answer.code = Number(h['grpc-status']);
      if (typeof h['grpc-message'] === 'string') answer.message = decodeURIComponent(h['grpc-message']);
    };
    request.on('response', read);
    request.on('trailers', read);
    request.on('data', () => undefined);
    request.on('error', () => undefined);
    request.on('close', () => {
      answer.rstCode = request.rstCode;
      session.close();
      resolve(answer);
    });
    request.end(body);
  });
}
