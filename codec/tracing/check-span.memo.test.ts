// The remembered trace_id / parent_id / span_kind / status_code of the tracing-API checks
// (check-span.ts Lineage, docs/performance.md, round 0440) against no memory at all: each span of a random request, validated on its own (a fresh batch,
// so nothing is remembered), must come out exactly as it does inside the request, where the previous
// span's ids are remembered. The id values are drawn from a small pool of valid and invalid forms in
// random order, so the memory is hit, missed and replaced; the body goes through JSON text as a
// client's does, so equal ids are distinct string instances.
import { describe, expect, it } from 'vitest';
import { pickWith, seededRandom } from '../../test/helpers/random.ts';
import { TracingSpans, type CheckedSpans } from './spans.ts';

/** One checker for every request, as a receiver keeps one: what it remembers crosses requests too. */
const checker = new TracingSpans();

function ingest(spans: unknown[]): CheckedSpans {
  return checker.check({ form: 'flat', spans });
}

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_IDS: unknown[] = [
  T, T, T, T.toUpperCase(), '5bf92f35-77b3-4da6-a3ce-929d0e0e4736', `urn:uuid:{${T}}`, `0x${T}`, `0X${T}`,
  '0'.repeat(32), T.slice(1), `${T.slice(1)}g`, 'a1b2c3d4e5f60718', 42, true, null, { id: T }, [T], undefined,
];
const PARENT_IDS: unknown[] = [
  'a1b2c3d4e5f60718', 'a1b2c3d4e5f60718', 'A1B2C3D4E5F60718', '0x00f067aa0ba902b7', '0'.repeat(16), T, T.toUpperCase(),
  'abc123abc123abc', 'a1b2c3d4e5f6071z', '', 7, false, null, undefined, { id: 1 },
];
const KINDS: unknown[] = [
  'SPAN_KIND_CLIENT', 'SPAN_KIND_CLIENT', 'SPAN_KIND_SERVER', 'SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_CONSUMER',
  'SERVER', 'span_kind_client', 3, null, undefined,
];
const CODES: unknown[] = ['STATUS_CODE_OK', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR', 'STATUS_CODE_UNSET', 'OK', 1, null, undefined];

/** What a test compares: the ids, kind and status of an accepted span, or the reason of a rejected one. */
function outcome(batch: CheckedSpans, index: number): unknown {
  const rejected = batch.rejections.find((r) => r.index === index);
  if (rejected) return rejected.reason;
  // Span ids are all different here, so the accepted spans are the others, in request order.
  const at = index - batch.rejections.filter((r) => r.index < index).length;
  const { traceId, parentId, kind, status } = batch.spans[at];
  return { traceId, parentId, kind, status };
}

describe('span checks: remembered ids, span kind and status code', () => {
  it('gives every span of a request what it gets validated alone (2,000 random requests)', () => {
    const random = seededRandom(440);
    let hits = 0;
    for (let round = 0; round < 2000; round++) {
      const n = 1 + Math.floor(random() * 12);
      const spans: Array<Record<string, unknown>> = [];
      for (let i = 0; i < n; i++) {
        // A run of equal ids is the case the memory is for; a fresh pick breaks the run.
        const repeat = i > 0 && random() < 0.6;
        const span: Record<string, unknown> = {
          trace_id: repeat ? spans[i - 1].trace_id : pickWith(random, TRACE_IDS),
          span_id: (i + 1).toString(16).padStart(16, '0'),
          start_time: 1776363498,
          end_time: 1776363499,
        };
        const parent = repeat && random() < 0.7 ? spans[i - 1].parent_id : pickWith(random, PARENT_IDS);
        if (parent !== undefined) span.parent_id = parent;
        const kind = repeat && random() < 0.7 ? spans[i - 1].span_kind : pickWith(random, KINDS);
        if (kind !== undefined) span.span_kind = kind;
        const code = repeat && random() < 0.7 ? spans[i - 1].status_code : pickWith(random, CODES);
        if (code !== undefined) span.status_code = code;
        if (repeat) hits++;
        spans.push(span);
      }
      const sent = JSON.parse(JSON.stringify({ spans })) as { spans: unknown[] };
      const together = ingest(sent.spans);
      for (let i = 0; i < n; i++) {
        const alone = ingest([(JSON.parse(JSON.stringify({ spans })) as { spans: unknown[] }).spans[i]]);
        expect(outcome(together, i), JSON.stringify(spans[i])).toEqual(outcome(alone, 0));
      }
    }
    expect(hits).toBeGreaterThan(5000);
  });
});
