// The `limit` processor: caps what one attribute value can cost downstream. A string over
// `max_value_bytes` is cut at a UTF-8 character boundary and marked with its original size; inline media
// (a base64 image or audio clip in a message) is replaced by its type, size and SHA-256, so it can still be
// matched to the original without carrying it. Span, event and link attributes, at any depth of the flat
// keys, array elements included. Spans in = spans out: nothing is dropped for its size.
//
// Each span that was changed says so in `ag.meta.limits.truncated` and `ag.meta.limits.media` (how many
// values), never with the values themselves.
import { createHash } from 'node:crypto';
import { rewriteStrings, type StringRewriter } from '../../model/attributes/rewrite.ts';
import type { WorkingBatch } from '../../model/batch.ts';
import type { SyncProcessor } from '../../pipeline/component.ts';
import { DEFAULT_MAX_VALUE_BYTES, type LimitConfig } from './config.ts';

/** `data:<media type>;base64,<payload>` (RFC 2397), the form SDKs put images and audio in messages. */
const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+)(?:;[a-z0-9-]+=[^;,]*)*;base64,/i;
/** Keys whose value is raw base64 media: OpenAI's image results and audio input (`...input_audio.data`). */
function isMediaKey(key: string): boolean {
  return key.endsWith('.b64_json') || key === 'b64_json' || key.endsWith('input_audio.data');
}
/** Below this, a value is left alone as media (a tiny icon costs less than its description). */
const MEDIA_MIN_CHARS = 1024;
const BASE64 = /^[A-Za-z0-9+/\r\n]+={0,2}$/;

/** What one span's values needed. */
interface Counts {
  truncated: number;
  media: number;
}

/** `s` cut to at most `max` UTF-8 bytes, at a character boundary (never inside a surrogate pair). */
export function cutUtf8(s: string, max: number): string {
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let n: number;
    let units = 1;
    if (c < 0x80) n = 1;
    else if (c < 0x800) n = 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n = 4; units = 2; }
    else n = 3;
    if (bytes + n > max) break;
    bytes += n;
    i += units;
  }
  return s.slice(0, i);
}

export class LimitProcessor implements SyncProcessor, StringRewriter {
  readonly sync = true as const;
  private readonly maxBytes: number;
  private readonly media: boolean;
  /** The current span's counts (scratch, reset per span). */
  private readonly counts: Counts = { truncated: 0, media: 0 };

  constructor(config: Partial<LimitConfig> = {}) {
    this.maxBytes = config.max_value_bytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.media = (config.media ?? 'placeholder') === 'placeholder';
  }

  process(batch: WorkingBatch): void {
    const counts = this.counts;
    for (const span of batch.spans) {
      counts.truncated = 0;
      counts.media = 0;
      rewriteStrings(span.attributes, this);
      if (span.events) for (const e of span.events) rewriteStrings(e.attributes, this);
      if (span.links) for (const l of span.links) if (l.attributes) rewriteStrings(l.attributes, this);
      if (counts.truncated + counts.media > 0) {
        if (counts.truncated > 0) span.attributes.set('ag.meta.limits.truncated', counts.truncated);
        if (counts.media > 0) span.attributes.set('ag.meta.limits.media', counts.media);
      }
    }
  }

  /** A string of the member `key` as it leaves (model/attributes/rewrite.ts walks them): the same string
   *  when nothing applies (the common case, checked cheaply). */
  string(key: string, s: string): string {
    const counts = this.counts;
    // A string of n UTF-16 units is at most 3n UTF-8 bytes: short ones need no measuring.
    if (s.length < MEDIA_MIN_CHARS && (this.maxBytes === 0 || s.length * 3 <= this.maxBytes)) return s;
    if (this.media) {
      const placeholder = mediaPlaceholder(key, s);
      if (placeholder !== undefined) {
        counts.media++;
        return placeholder;
      }
    }
    if (this.maxBytes === 0 || s.length * 3 <= this.maxBytes) return s;
    const size = Buffer.byteLength(s, 'utf8');
    if (size <= this.maxBytes) return s;
    counts.truncated++;
    // The marker counts against the limit, so the result is at most max_value_bytes and a second pass
    // (a replay, a second tracehop) leaves it as it is.
    const marker = `[truncated: ${size} bytes]`;
    return cutUtf8(s, this.maxBytes - marker.length) + marker;
  }
}

/** `[media image/png, 48213 bytes, sha256:<hex>]` for inline media (the decoded payload's size and hash), else undefined. */
export function mediaPlaceholder(key: string, s: string): string | undefined {
  if (s.length < MEDIA_MIN_CHARS) return undefined;
  let type: string;
  let payload: string;
  const m = DATA_URI.exec(s);
  if (m !== null) {
    type = m[1].toLowerCase();
    payload = s.slice(m[0].length);
  } else if (isMediaKey(key) && BASE64.test(s)) {
    type = 'application/octet-stream';
    payload = s;
  } else return undefined;
  const bytes = Buffer.from(payload, 'base64');
  return `[media ${type}, ${bytes.length} bytes, sha256:${createHash('sha256').update(bytes).digest('hex')}]`;
}
