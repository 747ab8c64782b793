// The daemon the hostile suite attacks: the built CLI with the tracing API, OTLP/HTTP and OTLP/gRPC on
// loopback, writing to a file exporter, with the default memory limit. Plus what every attack checks
// afterwards: the answer was a 4xx with a message, the daemon still accepts a valid request on every
// transport within 2 s, and its peak RSS (VmHWM) stays under memory_limit_mib + 256 MiB.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { decodeStatus } from '../../codec/otlp/index.ts';
import { startDaemon, type Daemon } from '../helpers/daemon.ts';
import { grpcMessage, rawGrpcCall, type RawGrpcAnswer } from '../otlp/raw-grpc.ts';
import { json, proto, tracing } from './bodies.ts';

export const MEMORY_LIMIT_MIB = 512;
/** The read timeouts of the receivers: short, so the slow-client tests finish quickly. */
export const READ_HEADER_TIMEOUT_MS = 1000;
export const READ_TIMEOUT_MS = 2000;

export interface Hostile {
  daemon: Daemon;
  /** `http://127.0.0.1:<port>` of the tracing API and of OTLP/HTTP. */
  tracingBase: string;
  otlpBase: string;
  grpcPort: number;
  stop(): Promise<void>;
}

export async function startHostile(): Promise<Hostile> {
  const timeouts = `read_header_timeout: ${READ_HEADER_TIMEOUT_MS}ms, read_timeout: ${READ_TIMEOUT_MS}ms`;
  const daemon = await startDaemon(`receivers:
  http: {endpoint: 127.0.0.1:0, ${timeouts}}
  otlp:
    protocols:
      http: {endpoint: 127.0.0.1:0, ${timeouts}}
      grpc: {endpoint: 127.0.0.1:0, read_timeout: ${READ_TIMEOUT_MS}ms}
exporters:
  file: {path: ./spans.jsonl}
service:
  memory_limit_mib: ${MEMORY_LIMIT_MIB}
  pipelines:
    traces: {receivers: [http, otlp], exporters: [file]}
`);
  const otlp = daemon.endpoints.otlp;
  return {
    daemon,
    tracingBase: daemon.url('http'),
    otlpBase: otlp.find((u) => u.startsWith('http:'))!,
    grpcPort: Number(new URL(otlp.find((u) => u.startsWith('grpc:'))!).port),
    async stop() {
      // No attack was an internal error, and the daemon is still alive: SIGTERM ends it normally.
      expect(daemon.logs.filter((line) => line.level === 'error')).toEqual([]);
      expect(daemon.child.exitCode).toBeNull();
      expect(await daemon.stop()).toBe(0);
    },
  };
}

/** The daemon's peak resident set so far, in MiB. */
export function peakRssMiB(pid: number): number {
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(kib![1]) / 1024;
}

export function expectPeakRssWithinLimit(h: Hostile): void {
  expect(peakRssMiB(h.daemon.child.pid!)).toBeLessThan(MEMORY_LIMIT_MIB + 256);
}

export interface HttpAnswer {
  status: number;
  /** `detail` (tracing API) or the google.rpc.Status `message` (OTLP), '' when there is none. */
  detail: string;
}

/** POSTs and reads the answer's message in whichever format the receiver answers. */
export async function post(url: string, body: Uint8Array, headers: Record<string, string>): Promise<HttpAnswer> {
  const res = await fetch(url, { method: 'POST', body, headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  let detail = '';
  if (type.startsWith('application/x-protobuf')) detail = bytes.length > 0 ? decodeStatus(bytes).message : '';
  else if (bytes.length > 0) {
    const parsed = JSON.parse(bytes.toString()) as { detail?: unknown; message?: unknown };
    detail = typeof parsed.detail === 'string' ? parsed.detail : typeof parsed.message === 'string' ? parsed.message : JSON.stringify(parsed.detail ?? '');
  }
  return { status: res.status, detail };
}

export const PROTO = { 'content-type': 'application/x-protobuf' };
export const JSON_TYPE = { 'content-type': 'application/json' };

/** A refusal caused by the input: a 4xx whose message says why (never a 5xx). */
export function expectRefused(answer: HttpAnswer, status: number, detail: RegExp): void {
  expect(answer.status, answer.detail).toBe(status);
  expect(answer.detail).toMatch(detail);
}

export function expectGrpcRefused(answer: RawGrpcAnswer, code: number, message: RegExp): void {
  expect(answer.code, answer.message).toBe(code);
  expect(answer.message).toMatch(message);
}

/** What a valid request on each transport answers now. */
async function validAnswers(h: Hostile): Promise<number[]> {
  const [t, p, j, g] = await Promise.all([
    post(`${h.tracingBase}/tracing/spans/ingest`, tracing.valid(), JSON_TYPE),
    post(`${h.otlpBase}/v1/traces`, proto.valid(), PROTO),
    post(`${h.otlpBase}/v1/traces`, json.valid(), JSON_TYPE),
    rawGrpcCall(h.grpcPort, grpcMessage(proto.valid())),
  ]);
  return [t.status, p.status, j.status, g.code ?? -1];
}

/**
 * A valid request is accepted on every transport within 2 s (the memory limiter may answer 503 for a
 * moment while the garbage of an attack is collected).
 */
export async function expectServing(h: Hostile): Promise<void> {
  const deadline = Date.now() + 2000;
  let answers = await validAnswers(h);
  while (answers.join() !== '202,200,200,0' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answers = await validAnswers(h);
  }
  expect(answers).toEqual([202, 200, 200, 0]);
}
