// The captured SDK payloads (test/fixtures/sdk-payloads, written by capture.ts): loaded as spans, with the
// markers SEEDSLOT1..3 the capture put into the prompt and the reply filled in, wherever and however
// encoded the SDK sent them (plain text, JSON text, JSON inside JSON).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeExportRequestJson } from '../../codec/otlp/decode-json.ts';
import type { AttrValue, Attributes, Span } from '../../model/span.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/sdk-payloads/', import.meta.url));
/** The SDKs captured, one fixture file each. */
export const CAPTURED_SDKS = ['openinference', 'openllmetry', 'traceloop', 'langfuse', 'langfuse-manual', 'vercel-semconv', 'vercel-legacy'] as const;
export type CapturedSdk = (typeof CAPTURED_SDKS)[number];
export const CAPTURE_QUESTION = 'What is the capital of France? Mail the answer to SEEDSLOT1 and use the key SEEDSLOT2.';
export const CAPTURE_ANSWER = 'Paris. Logged for account SEEDSLOT3.';
const MARKER = 'SEEDSLOT';
const SLOTS = /SEEDSLOT([1-3])/g;

/** The spans of one fixture, decoded afresh (callers may change them). */
export function capturedSpans(sdk: CapturedSdk): Span[] {
  return decodeExportRequestJson(readFileSync(`${FIXTURES_DIR}${sdk}.otlp.json`)).spans;
}

/** The text with each slot replaced by `fill(n)`; JSON text is decoded, filled and encoded again, so that
 *  what is put in is escaped as the SDK would have escaped it. */
export function fillText(text: string, fill: (slot: number) => string): string {
  if (!text.includes(MARKER)) return text;
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { return text.replace(SLOTS, (_m, n: string) => fill(Number(n))); }
  return JSON.stringify(fillJson(parsed, fill));
}

function fillJson(value: unknown, fill: (slot: number) => string): unknown {
  if (typeof value === 'string') return fillText(value, fill);
  if (Array.isArray(value)) return value.map((v) => fillJson(v, fill));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v, fill)]));
  return value;
}

function fillValue(value: AttrValue, fill: (slot: number) => string): AttrValue {
  if (typeof value === 'string') return fillText(value, fill);
  if (Array.isArray(value)) return value.map((v) => fillValue(v as AttrValue, fill)) as AttrValue;
  return value;
}

function fillAttributes(attrs: Attributes | undefined, fill: (slot: number) => string): number {
  if (attrs === undefined) return 0;
  let filled = 0;
  for (const [key, value] of [...attrs]) {
    const next = fillValue(value, fill);
    if (JSON.stringify(next) !== JSON.stringify(value)) { attrs.set(key, next); filled++; }
  }
  return filled;
}

/** Fills every slot of the span (name, attributes, event and link attributes); returns how many values held one. */
export function fillSlots(span: Span, fill: (slot: number) => string): number {
  let filled = fillAttributes(span.attributes, fill);
  for (const e of span.events ?? []) filled += fillAttributes(e.attributes, fill);
  for (const l of span.links ?? []) filled += fillAttributes(l.attributes, fill);
  if (span.name.includes(MARKER)) { span.name = fillText(span.name, fill); filled++; }
  return filled;
}
