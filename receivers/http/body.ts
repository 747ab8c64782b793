// Reading a request body within the size limit, and undoing its Content-Encoding (ingest-api.md §2.4).
// The body is kept as the Buffers Node hands over and joined once; decompression is synchronous with an
// output cap, so a small compressed body cannot expand past the limit in memory.
import type { IncomingMessage } from 'node:http';
import { gunzipSync, inflateRawSync, inflateSync, zstdDecompressSync } from 'node:zlib';
import { detailReply, type Reply } from './replies.ts';
import type { Coding } from './transport.ts';

function tooLarge(limit: number, what: 'Request body' | 'Decompressed body'): Reply {
  return detailReply(413, `${what} exceeds max_request_body_size (${limit} bytes)`);
}

/** The declared length is over the limit: answer before reading a byte. */
export function declaredTooLarge(incoming: IncomingMessage, limit: number): Reply | undefined {
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return tooLarge(limit, 'Request body');
  return undefined;
}

/**
 * Resolves with the whole body, or a 413 as soon as more than `limit` bytes arrived (the rest is left
 * for the server adapter to drain or cut). A client that goes away resolves with a 400 nobody reads.
 */
export function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer | Reply> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | Reply) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish(tooLarge(limit, 'Request body'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    const onAbort = () => finish(detailReply(400, 'Request body was not received completely'));
    const onClose = () => {
      if (!incoming.readableEnded) onAbort();
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onAbort);
    incoming.on('close', onClose);
    if (incoming.readableEnded) onEnd();
  });
}

/** zlib-wrapped deflate starts with a CMF/FLG pair: method 8 and a header checksum divisible by 31. */
function looksZlibWrapped(data: Buffer): boolean {
  return data.length >= 2 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0;
}

/** The only option used: the output cap, which every node:zlib convenience method honours. */
interface CapOptions {
  maxOutputLength: number;
}

function inflateEither(data: Buffer, options: CapOptions): Buffer {
  if (looksZlibWrapped(data)) {
    try {
      return inflateSync(data, options);
    } catch (error) {
      if (isOverLimit(error)) throw error;
      // A raw stream can start with bytes that look like a zlib header: try it as raw too.
    }
  }
  return inflateRawSync(data, options);
}

function isOverLimit(error: unknown): boolean {
  return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
}

const DECODERS: Record<Coding, (data: Buffer, options: CapOptions) => Buffer> = {
  gzip: gunzipSync,
  deflate: inflateEither,
  zstd: zstdDecompressSync,
};

/**
 * Undoes `codings` (applied left to right by the sender, so undone right to left). Corrupt data: 400
 * `Invalid compressed body: <coding>`; a result over `limit`: 413. An empty body stays empty (the JSON
 * step answers it).
 */
export function decodeBody(raw: Buffer, codings: Coding[], limit: number): Buffer | Reply {
  let data = raw;
  const options: CapOptions = { maxOutputLength: limit };
  for (let i = codings.length - 1; i >= 0 && data.length > 0; i--) {
    try {
      data = DECODERS[codings[i]](data, options);
    } catch (error) {
      if (isOverLimit(error)) return tooLarge(limit, 'Decompressed body');
      return detailReply(400, `Invalid compressed body: ${codings[i]}`);
    }
  }
  return data;
}
