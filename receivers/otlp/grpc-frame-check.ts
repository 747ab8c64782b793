// Checks the 5-byte prefix of each gRPC message (a compressed flag and a length) before grpc-js reads it,
// so that two cases answer as grpc-go, the reference server, does:
// - compressed flag set while the request names no `grpc-encoding` (or `identity`): INTERNAL. grpc-js
//   would hand the bytes to the handler as if they were not compressed.
// - declared length over `max_recv_msg_size_mib`: RESOURCE_EXHAUSTED at once, with a message naming the
//   config key (grpc-js's own answer names only a byte count).
// grpc-js keeps both the flag and the `grpc-encoding` header to itself (it strips the header from the
// metadata an interceptor sees). The only place they can be seen is the HTTP/2 stream and the encoding
// field of grpc-js's base call, which a first server interceptor receives. Neither is public API: when
// they are not where this expects them (another grpc-js version), the check stands aside and says so
// once in the log, and the gRPC conformance tests (test/otlp/grpc-framing.test.ts) fail.
import { ServerInterceptingCall, status, type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js';
import type { Logger } from '../../pipeline/log.ts';

const PREFIX_BYTES = 5;
const COMPRESSED = 1;

/** What grpc-js's BaseServerInterceptingCall holds at runtime (not in its declarations). */
interface BaseCallInternals {
  stream?: { prependListener?(event: 'data', listener: (chunk: Buffer) => void): unknown };
  incomingEncoding?: unknown;
}

/** Follows message boundaries across DATA chunks; calls `onPrefix` for each message's prefix. */
class MessagePrefixReader {
  readonly #prefix = Buffer.alloc(PREFIX_BYTES);
  #prefixFilled = 0;
  #payloadLeft = 0;
  readonly #onPrefix: (compressed: boolean, length: number) => boolean;

  /** `onPrefix` returns false to stop reading (the call has been answered). */
  constructor(onPrefix: (compressed: boolean, length: number) => boolean) {
    this.#onPrefix = onPrefix;
  }

  /** False once `onPrefix` stopped the reading. */
  read(chunk: Buffer): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.#payloadLeft > 0) {
        const take = Math.min(this.#payloadLeft, chunk.length - i);
        this.#payloadLeft -= take;
        i += take;
        continue;
      }
      const take = Math.min(PREFIX_BYTES - this.#prefixFilled, chunk.length - i);
      chunk.copy(this.#prefix, this.#prefixFilled, i, i + take);
      this.#prefixFilled += take;
      i += take;
      if (this.#prefixFilled < PREFIX_BYTES) return true;
      this.#prefixFilled = 0;
      this.#payloadLeft = this.#prefix.readUInt32BE(1);
      if (!this.#onPrefix(this.#prefix[0] === COMPRESSED, this.#payloadLeft)) return false;
    }
    return true;
  }
}

/**
 * The interceptor; it must be the server's first (it needs grpc-js's base call). `maxBytes` is the
 * server's `grpc.max_receive_message_length`.
 */
export function grpcFrameCheck(maxBytes: number, maxMib: number, logger: Logger): ServerInterceptor {
  let warned = false;
  return (_method, call: ServerInterceptingCallInterface) => {
    const internals = call as unknown as BaseCallInternals;
    const stream = internals.stream;
    const encoding = internals.incomingEncoding;
    const wrapped = new ServerInterceptingCall(call);
    if (typeof stream?.prependListener !== 'function' || typeof encoding !== 'string') {
      if (!warned) {
        warned = true;
        logger.warn('otlp receiver (grpc): this @grpc/grpc-js does not expose the message framing; the compressed-flag and size checks are off');
      }
      return wrapped;
    }
    const uncompressed = encoding === 'identity';
    let answered = false;
    const reader = new MessagePrefixReader((compressed, length) => {
      if (length > maxBytes) {
        wrapped.sendStatus({
          code: status.RESOURCE_EXHAUSTED,
          details: `the message is ${length} bytes, over max_recv_msg_size_mib (${maxMib} MiB)`,
        });
        return false;
      }
      if (compressed && uncompressed) {
        wrapped.sendStatus({
          code: status.INTERNAL,
          details: 'the message has the compressed flag set but the request names no grpc-encoding',
        });
        return false;
      }
      return true;
    });
    // Runs before grpc-js's own listener on the same chunk; once the status is sent, grpc-js sees the
    // call as cancelled and drops the chunk, so the handler never receives the message.
    stream.prependListener('data', (chunk: Buffer) => {
      if (!answered) answered = !reader.read(chunk);
    });
    return wrapped;
  };
}
