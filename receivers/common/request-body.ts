// What both HTTP receivers (the tracing API and OTLP/HTTP) do with a request body: read it within the size
// limit, and undo its Content-Encoding with the same limit on the output. Each receiver turns a failure
// into its own answer format (a FastAPI-style detail, or a google.rpc.Status).
//
// The body is kept as the Buffers Node hands over and joined once; decompression is synchronous with an
// output cap, so a small compressed body cannot expand past the limit in memory.
import type { IncomingMessage } from 'node:http';
import { gunzipSync, inflateRawSync, inflateSync, zstdDecompressSync } from 'node:zlib';

/** A decoding step, in the order the sender applied it. */
export type Coding = 'gzip' | 'deflate' | 'zstd';

export interface BodyFailure {
  status: 400 | 413;
  message: string;
}

export type BodyResult = { ok: true; bytes: Buffer } | ({ ok: false } & BodyFailure);

const CODINGS: Record<string, Coding | null> = {
  identity: null,
  gzip: 'gzip',
  'x-gzip': 'gzip',
  deflate: 'deflate',
  zstd: 'zstd',
};

/** The codings of a `Content-Encoding` value, in the order applied; undefined when one is unknown. */
export function parseContentEncoding(value: string | undefined): Coding[] | undefined {
  if (value === undefined) return [];
  const codings: Coding[] = [];
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '') continue;
    if (!Object.hasOwn(CODINGS, name)) return undefined;
    const coding = CODINGS[name];
    if (coding !== null) codings.push(coding);
  }
  return codings;
}

function tooLarge(limit: number, what: 'Request body' | 'Decompressed body'): { ok: false } & BodyFailure {
  return { ok: false, status: 413, message: `${what} exceeds max_request_body_size (${limit} bytes)` };
}

/** The declared length is over the limit: answer before reading a byte. */
export function declaredTooLarge(incoming: IncomingMessage, limit: number): BodyFailure | undefined {
  const declared = incoming.headers['content-length'];
  return declared !== undefined && Number(declared) > limit ? tooLarge(limit, 'Request body') : undefined;
}

/**
 * Resolves with the whole body, or a 413 as soon as more than `limit` bytes arrived (the rest is left
 * for the server to drain or cut). A client that goes away resolves with a 400 nobody reads. Callers
 * check `declaredTooLarge` first: the order of checks puts that 413 before the admission refusal.
 */
export function readBody(incoming: IncomingMessage, limit: number): Promise<BodyResult> {
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
        finish(tooLarge(limit, 'Request body'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
    const onAbort = () => finish({ ok: false, status: 400, message: 'Request body was not received completely' });
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

function isOverLimit(error: unknown): boolean {
  return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
}

/** HTTP `deflate` is zlib-wrapped, but some senders send a raw stream. */
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

const DECODERS: Record<Coding, (data: Buffer, options: CapOptions) => Buffer> = {
  gzip: gunzipSync,
  deflate: inflateEither,
  zstd: zstdDecompressSync,
};

/**
 * Undoes `codings` (applied left to right by the sender, so undone right to left). Corrupt data: 400
 * `Invalid compressed body: <coding>`; a result over `limit`: 413. An empty body stays empty.
 */
export function decompress(raw: Buffer, codings: Coding[], limit: number): BodyResult {
  let data = raw;
  const options: CapOptions = { maxOutputLength: limit };
  for (let i = codings.length - 1; i >= 0 && data.length > 0; i--) {
    try {
      data = DECODERS[codings[i]](data, options);
    } catch (error) {
      if (isOverLimit(error)) return tooLarge(limit, 'Decompressed body');
      return { ok: false, status: 400, message: `Invalid compressed body: ${codings[i]}` };
    }
  }
  return { ok: true, bytes: data };
}
