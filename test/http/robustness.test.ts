// 1,000 malformed requests against one receiver: no 5xx, no crash, only 202s append (and exactly their
// links), and a valid request succeeds afterwards. Inputs come from a seeded generator, so a failure
// reproduces.
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flatSpan, post, ROUTES, startReceiver, TRACE_ID, type Running } from './harness.ts';
import { seededRandom } from '../helpers/random.ts';

const LIMIT = 64 * 1024;
let r: Running;
beforeAll(async () => {
  r = await startReceiver({ max_request_body_size: LIMIT, max_spans_per_request: 500 });
});
afterAll(() => r.close());

const random = seededRandom(20260416);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];

function randomBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = int(256);
  return b;
}

const ODD_VALUES: unknown[] = [
  null, true, 0, -1, 1.5, 1e308, '', 'x', '\u0000', '\ud800', [], {}, [[[]]], { a: { b: null } }, 'SPAN_KIND_SERVER',
  '2026-13-45T99:99:99Z', '0x', TRACE_ID, -0, 123456, 'urn:uuid:', '{}', Array(50).fill('a'),
];

/** A plausible body with random fields replaced by values of the wrong type. */
function wrongTypes(route: string): unknown {
  if (route === '/simple/traces/') {
    const trace: Record<string, unknown> = { data: { outputs: 1 }, links: { l: { trace_id: TRACE_ID, span_id: '00f067aa0ba902b7' } } };
    for (const k of ['origin', 'kind', 'channel', 'data', 'tags', 'meta', 'references', 'links']) {
      if (random() < 0.3) trace[k] = pick(ODD_VALUES);
    }
    if (random() < 0.2) trace.references = { evaluator: pick(ODD_VALUES), testset: { id: pick(ODD_VALUES), slug: pick(ODD_VALUES) } };
    return random() < 0.1 ? pick(ODD_VALUES) : { trace };
  }
  const spans: unknown[] = [];
  for (let i = 0, n = int(6); i < n; i++) {
    const s: Record<string, unknown> = flatSpan(i, { parent_id: i ? flatSpan(0).span_id : undefined });
    for (const k of ['trace_id', 'span_id', 'parent_id', 'start_time', 'end_time', 'span_kind', 'attributes', 'events', 'links', 'references', 'status_code', 'span_type']) {
      if (random() < 0.15) s[k] = pick(ODD_VALUES);
    }
    spans.push(random() < 0.1 ? pick(ODD_VALUES) : s);
  }
  if (random() < 0.3) {
    return { traces: { [pick([TRACE_ID, 'k', ''])]: { spans: { root: random() < 0.5 ? spans : pick(ODD_VALUES), x: { spans: pick(ODD_VALUES) } } } } };
  }
  return random() < 0.1 ? { spans: pick(ODD_VALUES), traces: pick(ODD_VALUES) } : { spans };
}

interface Case {
  route: string;
  body: Buffer;
  headers: Record<string, string>;
}

function makeCase(i: number): Case {
  const route = ROUTES[i % ROUTES.length];
  const valid = Buffer.from(JSON.stringify(wrongTypes(route)));
  const headers: Record<string, string> = {};
  let body: Buffer;
  switch (i % 10) {
    case 0:
      body = randomBytes(int(2000));
      break;
    case 1:
      body = valid.subarray(0, int(valid.length));
      break;
    case 2:
    case 3:
      body = valid;
      break;
    case 4: {
      const open = pick(['[', '{"a":', '{"spans":[', '{"trace":{"data":']);
      body = Buffer.from(open.repeat(10_000) + (random() < 0.5 ? '1' : ''));
      break;
    }
    case 5:
      body = Buffer.concat([valid, Buffer.alloc(LIMIT + int(1000), 0x20)]);
      break;
    case 6:
      headers['content-encoding'] = pick(['gzip', 'deflate', 'zstd', 'x-gzip']);
      body = random() < 0.5 ? randomBytes(int(500)) : gzipSync(valid).subarray(0, int(40));
      break;
    case 7:
      headers['content-encoding'] = pick(['br', 'compress', 'gzip;q=1', 'gzip, br', 'identity, *']);
      headers['content-type'] = pick(['application/json', 'text/plain', 'application/json; charset=iso-8859-1', 'multipart/form-data']);
      body = valid;
      break;
    case 8: {
      // Invalid UTF-8 spliced into an otherwise valid body.
      const at = int(valid.length);
      body = Buffer.concat([valid.subarray(0, at), pick([Buffer.from([0xc3]), Buffer.from([0xff, 0xfe]), Buffer.from([0xed, 0xa0, 0x80])]), valid.subarray(at)]);
      break;
    }
    default: {
      // A decompression bomb: a small compressed body that expands past the limit.
      headers['content-encoding'] = pick(['gzip', 'zstd']);
      const big = Buffer.alloc(LIMIT * 4, 0x20);
      body = headers['content-encoding'] === 'gzip' ? gzipSync(big) : zstdCompressSync(big);
    }
  }
  return { route, body, headers };
}

it('1,000 malformed requests: no 5xx, only 202s append, then a valid request succeeds', async () => {
  const statuses = new Map<number, number>();
  let acknowledged = 0;
  for (let i = 0; i < 1000; i++) {
    const c = makeCase(i);
    const res = await post(r.port, c.route, c.body, c.headers);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    expect(res.status, `case ${i} ${c.route} ${c.body.subarray(0, 80).toString('latin1')}`).toBeLessThan(500);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json, `case ${i}: a JSON body`).toBeDefined();
    if (res.status === 202) acknowledged += res.json.count;
  }
  // The generator reached every kind of answer it aims at.
  for (const status of [202, 400, 413, 415, 422]) expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
  // Every acknowledged span was appended, and nothing else.
  expect(r.consumer.spans().length).toBe(acknowledged);

  const ok = await post(r.port, '/tracing/spans/ingest', { spans: [flatSpan(7)] });
  expect(ok.status).toBe(202);
  expect(ok.json.links).toEqual([{ trace_id: TRACE_ID, span_id: flatSpan(7).span_id }]);
});

it('clients that go away mid-body or mid-headers leave the receiver serving', async () => {
  const { connect } = await import('node:net');
  const partial = (text: string) =>
    new Promise<void>((resolve) => {
      const socket = connect(r.port, '127.0.0.1', () => {
        socket.write(text);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 20);
      });
      socket.on('error', () => resolve());
    });
  const before = r.consumer.appended.length;
  await partial('POST /tracing/spans/ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"spans":[');
  await partial('POST /tracing/spans/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"spa');
  await partial('POST /simple/traces/ HTTP/1.1\r\nHost: x\r\nContent-Le');
  await partial('GARBAGE\r\n\r\n');
  expect(r.consumer.appended.length).toBe(before);
  const ok = await post(r.port, '/tracing/spans/ingest', { spans: [flatSpan(8)] });
  expect(ok.status).toBe(202);
});
