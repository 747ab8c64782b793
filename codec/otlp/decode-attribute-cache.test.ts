import { describe, expect, it } from 'vitest';
import { AttributeCache, attributeHash } from './decode-attribute-cache.ts';

/** A KeyValue message's bytes: key (field 1) and an AnyValue holding a string (field 2). */
function keyValue(key: string, value: string): Buffer {
  const k = Buffer.from(key);
  const v = Buffer.from(value);
  return Buffer.from([0x0a, k.length, ...k, 0x12, v.length + 2, 0x0a, v.length, ...v]);
}

describe('AttributeCache', () => {
  it('holds every KeyValue of a message array, which differ only in the index', () => {
    const cache = new AttributeCache();
    const kvs = Array.from({ length: 8 }, (_, m) => ({ key: `gen_ai.prompt.${m}.role`, bytes: keyValue(`gen_ai.prompt.${m}.role`, 'user') }));
    const lookUp = (bytes: Buffer) => {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      const hash = attributeHash(bytes, view, 0, bytes.length);
      return { hash, view, hit: cache.has(hash, bytes, view, 0, bytes.length) };
    };
    // Two spans' worth: a KeyValue is kept from its second miss on.
    for (let span = 0; span < 2; span++) {
      for (const { key, bytes } of kvs) {
        const { hash, view, hit } = lookUp(bytes);
        if (!hit) cache.remember(hash, bytes, view, 0, bytes.length, key, 'user');
      }
    }
    const hits = kvs.map(({ key, bytes }) => {
      const { hash, hit } = lookUp(bytes);
      return hit && cache.key(hash) === key && cache.value(hash) === 'user';
    });
    expect(hits).toEqual(kvs.map(() => true));
  });
});
