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
//
// The same interceptor bounds how long a call may take to send its request (`read_timeout`, as on the
// HTTP receivers): a client that opens a stream and trickles or stops is answered DEADLINE_EXCEEDED and
// its stream ends. grpc-go has no such limit; without it such a stream would be held until the client
// goes away.
import {
  ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status, type ServerInterceptingCallInterface, type ServerInterceptor,
} from '@grpc/grpc-js';
import * as http2 from 'node:http2';
import type { Logger } from '../../pipeline/log.ts';

const PREFIX_BYTES = 5;
const COMPRESSED = 1;

/** What grpc-js's BaseServerInterceptingCall holds at runtime (not in its declarations). */
interface BaseCallInternals {
  stream?: {
    prependListener?(event: 'data', listener: (chunk: Buffer) => void): unknown;
    close?(code: number): void;
    closed?: boolean;
  };
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

export interface FrameCheckLimits {
  /** The server's `grpc.max_receive_message_length`, and the same in MiB for messages. */
  maxBytes: number;
  maxMib: number;
  /** Milliseconds from the call's start to the end of its request; 0: no limit. */
  readTimeout: number;
}

/**
 * Ends the call with DEADLINE_EXCEEDED unless its request has arrived within `readTimeout`. `closeStream`
 * then resets the stream, which the client may still hold open for sending.
 */
function withReadTimeout(call: ServerInterceptingCallInterface, readTimeout: number, closeStream: () => void): ServerInterceptingCall {
  if (readTimeout <= 0) return new ServerInterceptingCall(call);
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  const wrapped: ServerInterceptingCall = new ServerInterceptingCall(call, new ResponderBuilder()
    .withStart((next) => {
      timer = setTimeout(() => {
        wrapped.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `the request did not arrive within read_timeout (${readTimeout} ms)` });
        closeStream();
      }, readTimeout);
      timer.unref();
      next(new ServerListenerBuilder()
        .withOnReceiveHalfClose((nextHalfClose) => { stop(); nextHalfClose(); })
        .withOnCancel(stop)
        .build());
    })
    .withSendStatus((s, nextStatus) => { stop(); nextStatus(s); })
    .build());
  return wrapped;
}

/** The interceptor; it must be the server's first (it needs grpc-js's base call). */
export function grpcFrameCheck(limits: FrameCheckLimits, logger: Logger): ServerInterceptor {
  const { maxBytes, maxMib } = limits;
  let warned = false;
  return (_method, call: ServerInterceptingCallInterface) => {
    const internals = call as unknown as BaseCallInternals;
    const stream = internals.stream;
    const encoding = internals.incomingEncoding;
    // After an answer given here the client may still be sending (or holding its half of the stream
    // open, which would also hold up a graceful shutdown): the stream is reset with NO_ERROR once the
    // status is out, as HTTP/2 allows a server that answered before the request ended.
    const closeStream = () => setImmediate(() => {
      if (stream?.closed === false && typeof stream.close === 'function') stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
    const wrapped = withReadTimeout(call, limits.readTimeout, closeStream);
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
        closeStream();
        return false;
      }
      if (compressed && uncompressed) {
        wrapped.sendStatus({
          code: status.INTERNAL,
          details: 'the message has the compressed flag set but the request names no grpc-encoding',
        });
        closeStream();
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
