// The tracing API's view of a request body (ingest-api.md §2.4): the shared reading and decompression of
// receivers/common, with failures as this receiver's `{"detail": ...}` answers.
import type { IncomingMessage } from 'node:http';
import * as common from '../common/request-body.ts';
import { detailReply, type Reply } from './replies.ts';
import type { Coding } from './transport.ts';

/** The declared length is over the limit: answer before reading a byte. */
export function declaredTooLarge(incoming: IncomingMessage, limit: number): Reply | undefined {
  const failure = common.declaredTooLarge(incoming, limit);
  return failure && detailReply(failure.status, failure.message);
}

/** The whole body, or a 413 as soon as more than `limit` bytes arrived, or a 400 if the client went away. */
export async function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer | Reply> {
  const result = await common.readBody(incoming, limit);
  return result.ok ? result.bytes : detailReply(result.status, result.message);
}

/** Undoes the codings: corrupt data 400 `Invalid compressed body: <coding>`, over the limit 413. */
export function decodeBody(raw: Buffer, codings: Coding[], limit: number): Buffer | Reply {
  const result = common.decompress(raw, codings, limit);
  return result.ok ? result.bytes : detailReply(result.status, result.message);
}
