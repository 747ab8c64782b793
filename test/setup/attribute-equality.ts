// `toEqual` between attribute lists: equal when they hold the same members in the same order. Without
// this, vitest compares the lists' fields, and two equal lists differ in their private lookup state
// (whether an index was built, how often they were scanned). A list never equals anything else (a Map,
// an object). Order counts: the order of a span's attributes is part of its meaning (ag-namespace.md §1.1).
import { expect } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';

expect.addEqualityTesters([
  function attributeListEquality(a: unknown, b: unknown, customTesters) {
    if (!(a instanceof AttributeList || b instanceof AttributeList)) return undefined;
    if (!(a instanceof AttributeList && b instanceof AttributeList)) return false;
    return this.equals([...a.entries()], [...b.entries()], customTesters);
  },
]);
