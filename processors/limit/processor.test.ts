// The limit processor against independent checks: byte lengths and prefixes measured with Buffer, media
// hashes computed with node:crypto from the payload the test built, and a second pass that changes nothing.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { AttrValue, Span } from '../../model/span.ts';
import { makeSpan } from '../../test/helpers/spans.ts';
import { checkLimitConfig } from './config.ts';
import { LimitProcessor, cutUtf8 } from './processor.ts';

function run(p: LimitProcessor, attributes: Record<string, AttrValue>, more: Partial<Span> = {}): Span {
  const span = makeSpan({ attributes: new AttributeList(Object.entries(attributes)), ...more });
  p.process({ origin: 'otlp', spans: [span] });
  return span;
}

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

describe('limit: values over max_value_bytes', () => {
  it('cuts at a character boundary, marks the original size, fits the limit, and a second pass leaves it', () => {
    const p = new LimitProcessor({ max_value_bytes: 100 });
    // ASCII, 2-, 3- and 4-byte characters, so the cut falls inside each kind somewhere.
    for (const unit of ['a', 'é', '語', '🙂', 'aé語🙂']) {
      for (let n = 1; n < 80; n += 7) {
        const text = unit.repeat(n);
        const out = run(p, { 'ag.data.inputs.prompt': text }).attributes.get('ag.data.inputs.prompt') as string;
        if (utf8(text) <= 100) { expect(out).toBe(text); continue; }
        const marker = `[truncated: ${utf8(text)} bytes]`;
        expect(out.endsWith(marker)).toBe(true);
        const kept = out.slice(0, -marker.length);
        expect(text.startsWith(kept)).toBe(true);
        expect(utf8(out)).toBeLessThanOrEqual(100);
        // No half character: the kept text survives a UTF-8 round trip unchanged.
        expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept);
        // The longest prefix that fits: one more character would not.
        const next = text.slice(0, kept.length + (text.codePointAt(kept.length)! > 0xffff ? 2 : 1));
        expect(utf8(next) + utf8(marker)).toBeGreaterThan(100);
        expect(run(p, { k: out }).attributes.get('k')).toBe(out);
      }
    }
  });

  it('applies to array elements and to event and link attributes, counts per span, keeps numbers and short text', () => {
    const p = new LimitProcessor({ max_value_bytes: 64 });
    const long = 'x'.repeat(200);
    const span = run(p, { short: 'ok', n: 12345, list: ['a', long, 'b'] }, {
      events: [{ name: 'e', timeNs: 1n, attributes: new AttributeList([['message', long]]) }],
      links: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), attributes: new AttributeList([['why', long]]) }],
    });
    expect(span.attributes.get('short')).toBe('ok');
    expect(span.attributes.get('n')).toBe(12345);
    const list = span.attributes.get('list') as string[];
    expect([list[0], list[2]]).toEqual(['a', 'b']);
    expect(list[1].endsWith('[truncated: 200 bytes]')).toBe(true);
    expect((span.events![0].attributes.get('message') as string).endsWith('[truncated: 200 bytes]')).toBe(true);
    expect((span.links![0].attributes!.get('why') as string).endsWith('[truncated: 200 bytes]')).toBe(true);
    expect(span.attributes.get('ag.meta.limits.truncated')).toBe(3);
    expect(span.attributes.has('ag.meta.limits.media')).toBe(false);
  });

  it('0 turns the cap off; a limit below the marker\'s room is a config problem', () => {
    const text = 'y'.repeat(1_000_000);
    expect(run(new LimitProcessor({ max_value_bytes: 0, media: 'keep' }), { k: text }).attributes.get('k')).toBe(text);
    expect(checkLimitConfig({ max_value_bytes: 10, media: 'keep' })).toEqual([{ key: 'max_value_bytes', message: 'must be 0 (no limit) or at least 64' }]);
    expect(checkLimitConfig({ max_value_bytes: 0, media: 'keep' })).toEqual([]);
  });

  it('cutUtf8 never exceeds its budget', () => {
    expect(cutUtf8('🙂🙂', 7)).toBe('🙂');
    expect(cutUtf8('é', 1)).toBe('');
    expect(cutUtf8('abc', 0)).toBe('');
  });
});

describe('limit: inline media', () => {
  const png = Buffer.alloc(48_000, 7);
  png.write('\x89PNG', 0, 'latin1');
  const sha = createHash('sha256').update(png).digest('hex');

  it('a data: URI becomes its type, decoded size and SHA-256; raw base64 under an image or audio key too', () => {
    const p = new LimitProcessor();
    const span = run(p, {
      'ag.data.inputs.prompt.0.content.1.image_url.url': `data:image/png;base64,${png.toString('base64')}`,
      'ag.data.outputs.data.0.b64_json': png.toString('base64'),
      'ag.data.inputs.prompt.1.content.0.input_audio.data': png.toString('base64'),
      'ag.data.inputs.note': 'data:text/plain;base64,aGk=',
      'ag.data.inputs.essay': 'A'.repeat(5000),
    });
    expect(span.attributes.get('ag.data.inputs.prompt.0.content.1.image_url.url')).toBe(`[media image/png, 48000 bytes, sha256:${sha}]`);
    expect(span.attributes.get('ag.data.outputs.data.0.b64_json')).toBe(`[media application/octet-stream, 48000 bytes, sha256:${sha}]`);
    expect(span.attributes.get('ag.data.inputs.prompt.1.content.0.input_audio.data')).toBe(`[media application/octet-stream, 48000 bytes, sha256:${sha}]`);
    // A tiny data: URI stays, and base64-looking text under any other key is text.
    expect(span.attributes.get('ag.data.inputs.note')).toBe('data:text/plain;base64,aGk=');
    expect(span.attributes.get('ag.data.inputs.essay')).toBe('A'.repeat(5000));
    expect(span.attributes.get('ag.meta.limits.media')).toBe(3);
  });

  it('media: keep leaves media to the size cap', () => {
    const p = new LimitProcessor({ media: 'keep', max_value_bytes: 1000 });
    const out = run(p, { u: `data:image/png;base64,${png.toString('base64')}` }).attributes.get('u') as string;
    expect(out.startsWith('data:image/png;base64,')).toBe(true);
    expect(out.endsWith(`[truncated: ${22 + png.toString('base64').length} bytes]`)).toBe(true);
  });
});
