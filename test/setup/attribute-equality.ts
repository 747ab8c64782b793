// `toEqual` between attribute maps: an AttributeList (what namespace, the decoders and the disk codec
// build) equals a Map or another list with the same members in the same order. Without this, vitest
// compares the list's fields against the Map's entries and a test written with `new Map([...])` as the
// expected value fails on equal attributes. Order counts here, unlike vitest's Map-to-Map comparison:
// the order of a span's attributes is part of its meaning (ag-namespace.md §1.1).
import { expect } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';

function isAttributeMap(v: unknown): v is Map<unknown, unknown> | AttributeList {
  return v instanceof Map || v instanceof AttributeList;
}

expect.addEqualityTesters([
  function attributeListEquality(a: unknown, b: unknown, customTesters) {
    if (!(a instanceof AttributeList || b instanceof AttributeList)) return undefined;
    if (!isAttributeMap(a) || !isAttributeMap(b)) return false;
    return this.equals([...a.entries()], [...b.entries()], customTesters);
  },
]);
