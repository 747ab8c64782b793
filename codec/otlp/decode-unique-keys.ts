// Repeated attribute keys in decoded OTLP (a client's bug: the spec asks for unique keys; ag-namespace.md
// §1.2 says the last value wins at the first position), and in the tracing API's attribute objects, which
// the body reader flattens the same way (codec/tracing/body-reader.ts). A decoder appends members as
// they come and checks each finished list once, here, instead of looking every key up as it is added.
//
// Why: the lookup per added key (a scan of the members so far) was ~2% of the daemon's CPU on the OTLP
// benchmark. Spans of one instrumentation carry the same keys in the same order, and a decoded key
// repeated by the client is usually the very string the attribute cache handed out before: a list
// whose keys are, one by one, those of the last list found free of repeats is free of them too. That
// is one comparison per key, mostly of two references to one string (docs/performance.md, round 0450).
import type { AttributeList } from '../../model/attributes/list.ts';

export class UniqueKeys {
  /** The keys of the last list checked, free of repeats. */
  private last: string[] = [];

  /** Makes `list`'s keys unique (AttributeList.dropRepeats), skipping the work when they repeat the last list's. */
  settle(list: AttributeList): void {
    const keys = list.keyArray;
    const n = keys.length;
    if (n < 2) return;
    const last = this.last;
    if (n === last.length) {
      let i = 0;
      while (i < n && keys[i] === last[i]) i++;
      if (i === n) return;
    }
    list.dropRepeats();
    this.last = keys.slice();
  }
}
