import { describe, expect, it } from 'vitest';
import { AttributeList } from '../../model/attributes/list.ts';
import type { Span } from '../../model/span.ts';
import { checkOtlpSpans, OtlpRules, REJECTIONS_KEPT, type CheckedOtlpSpans } from './rules.ts';
import { isCanonicalHexId } from '../../model/ids.ts';
import { seededRandom } from '../../test/helpers/random.ts';

/** One rule set for the file, as a receiver keeps one across requests. */
const rules = new OtlpRules();
const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const S = '00f067aa0ba902b7';

function span(over: Partial<Span> = {}): Span {
  return { traceId: T, spanId: S, name: 'x', kind: 1, startNs: 1n, endNs: 2n, status: { code: 0 }, attributes: new AttributeList(), ...over };
}

function run(spans: Span[]): CheckedOtlpSpans {
  return checkOtlpSpans(spans, rules);
}

function reasonFor(s: Span): string {
  const b = run([s]);
  return b.spans.length === 1 ? 'accepted' : b.rejections[0].reason.split(':')[0];
}

describe('decoded OTLP spans against the receiver rules (otlp.md)', () => {
  it.each([
    ['invalid trace_id', { traceId: '0'.repeat(32) }],
    ['invalid trace_id', { traceId: 'abcd' }],
    ['invalid trace_id', { traceId: T.toUpperCase() }],
    ['invalid span_id', { spanId: '0000000000000000' }],
    ['invalid span_id', { spanId: T }],
    ['invalid parent_id', { parentId: 'abc' }],
    ['missing start_time', { startNs: 0n }],
    ['missing end_time', { endNs: 0n }],
    ['invalid span_kind', { kind: 6 }],
    ['invalid span_kind', { kind: -1 }],
    ['invalid status_code', { status: { code: 3 } }],
    ['invalid events[1].name', { events: [{ name: 'a', timeNs: 1n, attributes: new AttributeList() }, { name: '', timeNs: 1n, attributes: new AttributeList() }] }],
    ['invalid links[0].trace_id', { links: [{ traceId: '0'.repeat(32), spanId: S, attributes: new AttributeList() }] }],
    ['invalid links[0].span_id', { links: [{ traceId: T, spanId: '', attributes: new AttributeList() }] }],
  ])('%s', (reason, over) => {
    expect(reasonFor(span(over as Partial<Span>))).toBe(reason);
  });

  it('an all-zero or empty parent id means root and is dropped', () => {
    for (const parentId of ['0000000000000000', '']) {
      const b = run([span({ parentId })]);
      expect(b.spans).toHaveLength(1);
      expect('parentId' in b.spans[0]).toBe(false);
    }
    expect(run([span({ parentId: 'a1b2c3d4e5f60718' })]).spans[0].parentId).toBe('a1b2c3d4e5f60718');
  });

  it('bad spans move to rejections with position, path and the hex as decoded; no de-duplication', () => {
    const b = run([span(), span({ spanId: 'ab', kind: 9 }), span(), span({ startNs: 0n })]);
    expect(b.spans).toHaveLength(2);
    expect(b.rejections).toEqual([
      { index: 1, path: 'spans[1]', trace_id: T, span_id: 'ab', reason: 'invalid span_id' },
      { index: 3, path: 'spans[3]', trace_id: T, span_id: S, reason: 'missing start_time' },
    ]);
  });

  it('accepted spans are the valid ones in order, wherever the rejections fall (none, first, last, all)', () => {
    // The accepted list is the input array itself until the first rejection, then a copy: both must
    // give exactly the spans a filter gives, with their positions.
    const random = seededRandom(4305);
    for (let i = 0; i < 400; i++) {
      const n = Math.floor(random() * 30);
      const p = [0, 0.05, 0.5, 1][i % 4];
      const spans = Array.from({ length: n }, (_, j) => span(random() < p ? { kind: 9, name: `bad${j}` } : { name: `ok${j}` }));
      const want = spans.map((s, j) => [s, j] as const).filter(([s]) => s.kind !== 9);
      const input = [...spans];
      const b = run(input);
      expect(b.spans.map((s) => s.name)).toEqual(want.map(([s]) => s.name));
      const bad = spans.flatMap((s, j) => (s.kind === 9 ? [j] : []));
      expect(b.rejected).toBe(bad.length);
      // Only the first REJECTIONS_KEPT are kept as entries, however many spans are rejected.
      expect(b.rejections.map((r) => r.index)).toEqual(bad.slice(0, REJECTIONS_KEPT));
    }
  });

  it('kind 0..5, status 0..2, [] links and events are fine', () => {
    for (let kind = 0; kind <= 5; kind++) expect(reasonFor(span({ kind }))).toBe('accepted');
    for (let code = 0; code <= 2; code++) expect(reasonFor(span({ status: { code } }))).toBe('accepted');
    expect(reasonFor(span({ links: [], events: [] }))).toBe('accepted');
  });

  it('random sequences of valid ids and near misses get the verdicts of otlp.md (the remembered ids change none)', () => {
    // The rules as otlp.md states them, id by id.
    const rules = new OtlpRules();
    const expected = (s: Span): string | undefined => {
      if (!isCanonicalHexId(s.traceId, 32)) return 'invalid trace_id';
      if (!isCanonicalHexId(s.spanId, 16)) return 'invalid span_id';
      const p = s.parentId;
      if (p !== undefined && p !== '' && p !== '0000000000000000' && !isCanonicalHexId(p, 16)) return 'invalid parent_id';
      return undefined;
    };
    const random = seededRandom(390);
    const pick = <T,>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    // Valid ids and near misses: uppercase, all-zero, short, empty, a copy that is not the same instance.
    const traces = [T, T.toUpperCase(), '0'.repeat(32), '', T.slice(1), Buffer.from(T).toString('latin1'), 'f'.repeat(32)];
    const parents = [S, S.toUpperCase(), '0'.repeat(16), '', S.slice(2), Buffer.from(S).toString('latin1'), 'e'.repeat(16), undefined];
    for (let i = 0; i < 3000; i++) {
      const parentId = pick(parents);
      const s = span({ traceId: pick(traces), spanId: pick([S, 'ab', '0'.repeat(16)]), ...(parentId === undefined ? {} : { parentId }) });
      const want = expected(s);
      expect(rules.problem(s), `${s.traceId} ${s.spanId} ${parentId}`).toBe(want);
      if (want === undefined) {
        const root = parentId === '' || parentId === '0000000000000000';
        expect('parentId' in s).toBe(parentId !== undefined && !root);
      }
    }
  });
});
