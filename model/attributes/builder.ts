// Attribute lists built member by member into arrays kept from list to list, then handed out at their
// exact size.
//
// Why: a list built by appends grows its two arrays as V8 grows any array (0 -> 17 -> 41 -> 77 slots),
// so the 45 members of an LLM-call span allocate 135 slots per array and keep 77, and namespace's 77
// output members allocate 135. Those bytes are most of what a span allocates besides its texts, and the
// young generation fills, and is collected, in step with what is allocated: every collection copies the
// spans still waiting for their exporter (docs/performance.md, issue 26). Here the members go into the
// builder's own arrays, which stay grown, and `finish` copies them out once (a native slice).
import { AttributeList } from './list.ts';
import type { AttrValue } from '../span.ts';

/** Arrays that grew past this many members (a span with huge attribute maps) are let go after use. */
const KEEP_AT_MOST = 4096;

/** One list at a time: `append` members, then `finish`. Belongs to one decoder or processor instance. */
export class AttributeListBuilder {
  private keys: string[] = [];
  private values: AttrValue[] = [];
  private count = 0;
  /** Entries [0, used) may still point at members of lists already handed out. */
  private used = 0;
  /** Once a member needed Map semantics (`asList`): the list that holds the members from then on. */
  private list: AttributeList | undefined;

  /** Adds a member whose key the caller knows is not present, or leaves repeats to `dropRepeats` later. */
  append(key: string, value: AttrValue): void {
    if (this.list !== undefined) {
      this.list.append(key, value);
      return;
    }
    // Written at the end of what this builder ever held or before it: the arrays stay packed.
    this.keys[this.count] = key;
    this.values[this.count] = value;
    this.count++;
  }

  /** The members so far as a real list, for a caller that needs `set` or `dropRepeats`; later appends go there. */
  asList(): AttributeList {
    this.list ??= this.take();
    return this.list;
  }

  /** The list of the members appended since the last `finish`; the builder is empty again. */
  finish(): AttributeList {
    const list = this.list ?? this.take();
    this.list = undefined;
    return list;
  }

  /** Drops what was appended since the last `finish` (a decoder whose last message failed part way). */
  clear(): void {
    // The dropped members are blanked by the next take, as a longer list's would be.
    this.used = Math.max(this.used, this.count);
    this.count = 0;
    this.list = undefined;
  }

  private take(): AttributeList {
    const n = this.count;
    this.count = 0;
    const list = AttributeList.adopt(this.keys.slice(0, n), this.values.slice(0, n));
    // What a longer list left beyond this one's members would keep its values (texts, maybe large)
    // alive for as long as no list as long comes again: dropped. This list's own stay until overwritten.
    if (n > KEEP_AT_MOST || this.used > KEEP_AT_MOST) {
      this.keys = [];
      this.values = [];
      this.used = 0;
    } else if (n < this.used) {
      this.keys.fill('', n, this.used);
      this.values.fill(null, n, this.used);
      this.used = n;
    } else this.used = n;
    return list;
  }
}
