// ingest-api.md §8: POST /simple/traces/ end to end, through the real processors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, startReceiver, TRACE_ID, type Running } from './harness.ts';
import { AttributeList } from '../../model/attributes/list.ts';

let r: Running;
beforeAll(async () => {
  r = await startReceiver();
});
afterAll(() => r.close());
beforeEach(() => {
  r.consumer.appended.length = 0;
});

const simple = (trace: unknown) => post(r.port, '/simple/traces/', { trace });
const SPAN_ID = '00f067aa0ba902b7';

describe('accepted simple traces', () => {
  it('the §8.1 example: echo (§8.4) and the one span that enters the pipeline (§8.2)', async () => {
    const trace = {
      origin: 'human', kind: 'eval', channel: 'sdk',
      data: { outputs: { score: 5 } }, tags: { source: 'ui' }, meta: { reviewer: 'r1' },
      references: { evaluator: { slug: 'user-feedback' } },
      links: { invocation: { trace_id: TRACE_ID, span_id: SPAN_ID } },
    };
    const before = BigInt(Date.now()) * 1_000_000n;
    const res = await simple(trace);
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    expect(res.status).toBe(202);
    expect(res.json.count).toBe(1);
    const { trace_id, span_id, ...echo } = res.json.trace;
    expect(trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(echo).toEqual(trace);
    expect(Object.keys(res.json.trace)).toEqual(
      ['trace_id', 'span_id', 'origin', 'kind', 'channel', 'data', 'tags', 'meta', 'references', 'links']);

    const spans = r.consumer.spans();
    expect(spans).toHaveLength(1);
    const s = spans[0];
    expect(s.traceId).toBe(trace_id);
    expect(s.spanId).toBe(span_id);
    expect(s.parentId).toBeUndefined();
    expect(s.name).toBe('user-feedback');
    expect(s.kind).toBe(0);
    expect(s.status.code).toBe(0);
    expect(s.startNs).toBe(s.endNs);
    expect(s.startNs >= before && s.startNs <= after).toBe(true);
    expect(s.spanType).toBe('task');
    expect(s.traceType).toBe('annotation');
    const attrs = Object.fromEntries(s.attributes);
    expect(attrs).toMatchObject({
      'ag.type.span': 'task', 'ag.type.trace': 'annotation', 'ag.data.outputs.score': 5,
      'ag.references.evaluator.slug': 'user-feedback', 'ag.flags.is_feedback': true, 'ag.flags.is_evaluation': true,
      'ag.flags.is_sdk': true, 'ag.tags.source': 'ui', 'ag.meta.reviewer': 'r1',
    });
    expect(attrs).not.toHaveProperty('ag.metrics.duration.cumulative');
    expect(s.links).toEqual([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes: new AttributeList([['key', 'invocation']]) }]);
  });

  it('minimal request: defaults, name `annotation`, links [] (an annotation), only `data` echoed', async () => {
    const res = await simple({ data: { outputs: 'ok' } });
    expect(res.status).toBe(202);
    const { trace_id, span_id, ...echo } = res.json.trace;
    expect(echo).toEqual({ origin: 'custom', kind: 'adhoc', channel: 'api', data: { outputs: 'ok' } });
    expect(r.consumer.spans()[0].spanId).toBe(span_id);
    expect(r.consumer.spans()[0].traceId).toBe(trace_id);
    const s = r.consumer.spans()[0];
    expect(s.name).toBe('annotation');
    expect(s.links).toEqual([]);
    expect(s.traceType).toBe('annotation');
    expect(Object.fromEntries(s.attributes)).toMatchObject({ 'ag.flags.is_custom': true, 'ag.data.outputs': 'ok' });
  });

  it('fresh ids for every request', async () => {
    const a = await simple({ data: {} });
    const b = await simple({ data: {} });
    expect(a.json.trace.trace_id).not.toBe(b.json.trace.trace_id);
    expect(a.json.trace.span_id).not.toBe(b.json.trace.span_id);
  });

  const flagRows: Array<[Record<string, string>, Record<string, true>]> = [
    [{ origin: 'custom' }, { is_custom: true }],
    [{ origin: 'human' }, { is_feedback: true }],
    [{ origin: 'auto' }, {}],
    [{ origin: 'auto', kind: 'adhoc' }, {}],
    [{ origin: 'auto', kind: 'eval' }, { is_evaluation: true }],
    [{ origin: 'auto', kind: 'play' }, { is_playground: true }], // read-api.md §8.6
    [{ origin: 'auto', channel: 'api' }, {}],
    [{ origin: 'auto', channel: 'sdk' }, { is_sdk: true }],
    [{ origin: 'auto', channel: 'web' }, { is_web: true }],
    [{ origin: 'auto', channel: 'otlp' }, { is_otlp: true }], // read-api.md §8.6
  ];
  for (const [enums, flags] of flagRows) {
    it(`${JSON.stringify(enums)} -> flags ${JSON.stringify(flags)}`, async () => {
      const res = await simple({ ...enums, data: { x: 1 } });
      expect(res.status).toBe(202);
      expect(res.json.trace).toMatchObject(enums);
      const attrs = r.consumer.spans()[0].attributes;
      const got = Object.fromEntries([...attrs].filter(([k]) => k.startsWith('ag.flags.')).map(([k, v]) => [k.slice(9), v]));
      expect(got).toEqual(flags);
    });
  }

  it('list-form links carry the literal key `key`; a link\'s own attributes are not carried', async () => {
    const links = [
      { trace_id: TRACE_ID.toUpperCase(), span_id: SPAN_ID, attributes: { mine: 1 } },
      { trace_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', span_id: '1111111111111111' },
    ];
    const res = await simple({ data: {}, links });
    expect(res.status).toBe(202);
    expect(res.json.trace.links).toEqual(links);
    expect(r.consumer.spans()[0].links).toEqual([
      { traceId: TRACE_ID, spanId: SPAN_ID, attributes: new AttributeList([['key', 'key']]) },
      { traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: '1111111111111111', attributes: new AttributeList([['key', 'key']]) },
    ]);
  });

  it('map-form links in map order; references: null entries and fields left out, other keys carried', async () => {
    const res = await simple({
      data: {},
      links: { b: { trace_id: TRACE_ID, span_id: SPAN_ID }, a: { trace_id: TRACE_ID, span_id: '1111111111111111' } },
      references: {
        evaluator: { slug: 'ev', version: null, id: '4BF92F35-77B3-4DA6-A3CE-929D0E0E4736' }, testset: null,
        application: { version: '3' },
      },
    });
    expect(res.status).toBe(202);
    const s = r.consumer.spans()[0];
    expect(s.name).toBe('ev');
    expect(s.links?.map((l) => l.attributes.get('key'))).toEqual(['b', 'a']);
    const refs = [...s.attributes].filter(([k]) => k.startsWith('ag.references.'));
    expect(refs).toEqual([
      ['ag.references.evaluator.slug', 'ev'],
      ['ag.references.evaluator.id', '4bf92f35-77b3-4da6-a3ce-929d0e0e4736'],
      ['ag.references.application.version', '3'],
    ]);
    expect(res.json.trace.references.testset).toBeNull();
  });

  it('no references and no links: 202; tags with nested objects and 0/1 leaves are accepted', async () => {
    const res = await simple({ data: { a: 1 }, tags: { nested: { ok: 1, no: 0 }, flag: false } });
    expect(res.status).toBe(202);
    expect(res.json.trace.tags).toEqual({ nested: { ok: 1, no: 0 }, flag: false });
  });

  it('echoes integers beyond 2^53 exactly', async () => {
    const res = await post(r.port, '/simple/traces/', '{"trace":{"data":{"big":123456789012345678901}}}');
    expect(res.status).toBe(202);
    expect(res.text).toContain('"big":123456789012345678901');
  });
});

describe('invalid simple traces: 422 with loc and type (§2.3, §8.1)', () => {
  const rows: Array<[string, unknown, Array<string | number>, string]> = [
    ['trace absent', undefined, ['body', 'trace'], 'missing'],
    ['trace null', null, ['body', 'trace'], 'missing'],
    ['trace not an object', [1], ['body', 'trace'], 'dict_type'],
    ['origin unknown', { origin: 'robot', data: {} }, ['body', 'trace', 'origin'], 'enum'],
    ['kind unknown', { kind: 'EVAL', data: {} }, ['body', 'trace', 'kind'], 'enum'],
    ['channel not a string', { channel: 1, data: {} }, ['body', 'trace', 'channel'], 'enum'],
    ['data missing', {}, ['body', 'trace', 'data'], 'missing'],
    ['data not an object', { data: 'x' }, ['body', 'trace', 'data'], 'dict_type'],
    ['tags not an object', { data: {}, tags: [] }, ['body', 'trace', 'tags'], 'dict_type'],
    ['tag leaf 2', { data: {}, tags: { a: { b: 2 } } }, ['body', 'trace', 'tags', 'a', 'b'], 'string_type'],
    ['tag leaf list', { data: {}, tags: { a: ['x'] } }, ['body', 'trace', 'tags', 'a'], 'string_type'],
    ['meta not an object', { data: {}, meta: 1 }, ['body', 'trace', 'meta'], 'dict_type'],
    ['references not an object', { data: {}, references: [] }, ['body', 'trace', 'references'], 'dict_type'],
    ['reference entry not an object', { data: {}, references: { evaluator: 'x' } }, ['body', 'trace', 'references', 'evaluator'], 'dict_type'],
    ['reference id not a UUID', { data: {}, references: { testset: { id: 'abc' } } }, ['body', 'trace', 'references', 'testset', 'id'], 'uuid_parsing'],
    ['reference slug pattern', { data: {}, references: { evaluator: { slug: '.bad' } } }, ['body', 'trace', 'references', 'evaluator', 'slug'], 'string_pattern_mismatch'],
    ['reference slug not a string', { data: {}, references: { evaluator: { slug: 1 } } }, ['body', 'trace', 'references', 'evaluator', 'slug'], 'string_type'],
    ['reference version not a string', { data: {}, references: { application: { version: 3 } } }, ['body', 'trace', 'references', 'application', 'version'], 'string_type'],
    ['links neither object nor list', { data: {}, links: 'x' }, ['body', 'trace', 'links'], 'dict_type'],
    ['link not an object', { data: {}, links: ['x'] }, ['body', 'trace', 'links', 0], 'dict_type'],
    ['link trace_id missing', { data: {}, links: { inv: { span_id: SPAN_ID } } }, ['body', 'trace', 'links', 'inv', 'trace_id'], 'missing'],
    ['link trace_id invalid', { data: {}, links: { inv: { trace_id: 'nope', span_id: SPAN_ID } } }, ['body', 'trace', 'links', 'inv', 'trace_id'], 'string_pattern_mismatch'],
    ['link span_id invalid', { data: {}, links: [{ trace_id: TRACE_ID, span_id: '0000000000000000' }] }, ['body', 'trace', 'links', 0, 'span_id'], 'string_pattern_mismatch'],
    ['link span_id not a string', { data: {}, links: [{ trace_id: TRACE_ID, span_id: 7 }] }, ['body', 'trace', 'links', 0, 'span_id'], 'string_type'],
    ['link attributes not an object', { data: {}, links: [{ trace_id: TRACE_ID, span_id: SPAN_ID, attributes: 1 }] }, ['body', 'trace', 'links', 0, 'attributes'], 'dict_type'],
  ];
  for (const [name, trace, loc, type] of rows) {
    it(`${name} -> ${JSON.stringify(loc)} ${type}, nothing appended`, async () => {
      const res = await post(r.port, '/simple/traces/', trace === undefined ? {} : { trace });
      expect(res.status).toBe(422);
      expect(res.json.detail).toContainEqual(expect.objectContaining({ loc, type }));
      expect(r.consumer.appended).toHaveLength(0);
    });
  }

  it('reports every problem at once', async () => {
    const res = await simple({ origin: 'x', kind: 'y' });
    expect(res.json.detail.map((d: { loc: string[] }) => d.loc.at(-1))).toEqual(['origin', 'kind', 'data']);
  });

  it('a selector reference (not a listed key) is carried as it is', async () => {
    const res = await simple({ data: {}, references: { selector: 'anything' } });
    expect(res.status).toBe(202);
  });
});
