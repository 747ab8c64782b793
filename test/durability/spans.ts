// Spans for the durability tests: every field of the canonical Span used somewhere, so a lossy codec
// shows up as a mismatch.
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';

export function makeSpan(id: string, i = 0): Span {
  const span: Span = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: id,
    kind: 3,
    startNs: 1776363498123456789n + BigInt(i),
    endNs: 1776363499500000000n,
    status: { code: 1 },
    attributes: new AttributeList([
      ['ag.type.span', 'chat'],
      ['ag.data.inputs.prompt', `prompt ${i} with some text to give the record a realistic size`],
      ['ag.metrics.duration.cumulative', 1376.543211],
      ['ag.metrics.tokens.total', 168],
      ['big', 9007199254740993n],
      ['list', ['a', 1, true, null]],
    ]),
  };
  if (i % 2 === 0) span.parentId = 'a1b2c3d4e5f60718';
  if (i % 3 === 0) span.events = [{ name: 'exception', timeNs: 1776363499000000000n, attributes: new AttributeList([['message', 'boom']]) }];
  if (i % 4 === 0) span.links = [];
  return span;
}

/** One record's worth of spans whose names carry `id`, so a test can tell records apart after a read. */
export function makeSpans(id: string, count = 1): Span[] {
  const out: Span[] = [];
  for (let i = 0; i < count; i++) out.push(makeSpan(count === 1 ? id : `${id}#${i}`, i));
  return out;
}
