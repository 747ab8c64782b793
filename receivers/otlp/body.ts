// Reading an OTLP/HTTP body within the size limit and undoing its Content-Encoding. The limit applies
// to the raw bytes (from Content-Length when given, else while reading) and to the decompressed bytes:
// decompression runs with an output cap, so a small compressed body cannot expand past it in memory.
import type { IncomingMessage } from 'node:http';
import { gunzipSync, inflateRawSync, inflateSync, zstdDecompressSync } from 'node:zlib';

export type Coding = 'gzip' | 'deflate' | 'zstd';

const CODINGS: Record<string, Coding | null> = {
  identity: null,
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  zstd: 'zstd',
};

/** The codings of a Content-Encoding value, in the order the sender applied them; undefined if unknown. */
export function parseContentEncoding(value: string | undefined): Coding[] | undefined {
  if (value === undefined) return [];
  const out: Coding[] = [];
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '') continue;
    if (!Object.hasOwn(CODINGS, name)) return undefined;
    const coding = CODINGS[name];
    if (coding !== null) out.push(coding);
  }
  return out;
}

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; status: 400 | 413; message: string };

/** Reads the whole body; stops at the first byte over `limit`. */
export function readBody(incoming: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.resolve({ ok: false, status: 413, message: `request body exceeds max_request_body_size (${limit} bytes)` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyResult) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, status: 413, message: `request body exceeds max_request_body_size (${limit} bytes)` });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
    const onAbort = () => finish({ ok: false, status: 400, message: 'request body was not received completely' });
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

function inflateEither(data: Buffer, options: { maxOutputLength: number }): Buffer {
  // HTTP `deflate` is zlib-wrapped, but some senders send a raw stream.
  if (looksZlibWrapped(data)) {
    try {
      return inflateSync(data, options);
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    }
  }
  return inflateRawSync(data, options);
}

const DECODERS: Record<Coding, (data: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  deflate: inflateEither,
  zstd: zstdDecompressSync,
};

/** Undoes the codings right to left. Corrupt data: 400; a result over `limit`: 413. */
export function decompress(raw: Buffer, codings: Coding[], limit: number): BodyResult {
  let data = raw;
  for (let i = codings.length - 1; i >= 0 && data.length > 0; i--) {
    try {
      data = DECODERS[codings[i]](data, { maxOutputLength: limit });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        return { ok: false, status: 413, message: `decompressed body exceeds max_request_body_size (${limit} bytes)` };
      }
      return { ok: false, status: 400, message: `invalid ${codings[i]} data` };
    }
  }
  return { ok: true, bytes: data };
}
