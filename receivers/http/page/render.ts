// The page's HTML: a list of traces with a search box, and one trace as a tree. Server-rendered, no
// script at all: the search box is a plain GET form, a span's details open with <details>. Every value
// goes through `html` (html.ts), which escapes it.
import { stringifyJson } from '../../../codec/json/parse.ts';
import { html, Markup } from './html.ts';
import type { SpanAtDepth } from '../../../model/read-trace.ts';
import { otherAttributes, spanDurationMs, spanType, valueAt, type SpanObject, type TraceSummary } from './trace-view.ts';

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:20px;align-items:center}
header a{color:#fff;text-decoration:none;font-weight:600}
main{padding:16px 20px}
form{display:flex;gap:8px}
input[type=search]{width:28em;padding:4px 8px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e3e6eb;white-space:nowrap}
td.name{white-space:normal;word-break:break-all}
.num{text-align:right;font-variant-numeric:tabular-nums}
.error{color:#b3261e;font-weight:600}.ok{color:#1b7a3d}.unset{color:#6b7280}
.mono{font-family:ui-monospace,monospace;font-size:12px}
.muted{color:#6b7280}
ol.spans{list-style:none;padding:0;margin:0;background:#fff}
ol.spans li{border-bottom:1px solid #e3e6eb;padding:4px 10px}
summary{cursor:pointer;display:flex;gap:14px}
summary .name{font-weight:600}
section.part h4{margin:8px 0 2px}
pre{background:#f0f2f5;padding:6px;margin:0;overflow:auto;max-height:24em;white-space:pre-wrap;word-break:break-all}
`;

/** A constant of this file, not a value: kept as written. */
const STYLE_MARKUP = new Markup(STYLE);

/** Indentation of a span in the tree, capped so a deep chain stays on the screen. */
const MAX_INDENT_LEVELS = 24;
const INDENT_PX = 18;

export function layout(title: string, body: Markup, query = ''): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title} · tracehop</title><style>${STYLE_MARKUP}</style></head>
<body><header><a href="./">tracehop traces</a>
<form method="get" action="./" role="search"><input type="search" name="q" value="${query}" placeholder="span name or trace id" aria-label="search traces"><button type="submit">Search</button></form>
</header><main>${body}</main></body></html>
`.text;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms < 1000 ? `${+ms.toFixed(ms < 10 ? 2 : 0)} ms` : `${+(ms / 1000).toFixed(2)} s`;
}

function formatCost(cost: number | undefined): string {
  return cost === undefined ? '–' : `$${+cost.toPrecision(4)}`;
}

function formatCount(n: number | undefined): string {
  return n === undefined ? '–' : n.toLocaleString('en-US');
}

function status(summary: Pick<TraceSummary, 'status' | 'errors'>): Markup {
  const text = summary.status === 'error' ? `error${summary.errors > 1 ? ` (${summary.errors})` : ''}` : summary.status;
  return html`<span class="${summary.status}">${text}</span>`;
}

/** The list of traces: `query` is the search text ('' for the most recent traces). */
export function listPage(traces: TraceSummary[], query: string, limit: number): string {
  const heading = query === ''
    ? html`<h2>Recent traces</h2>`
    : html`<h2>Traces matching <q>${query}</q></h2><p class="muted">a span name containing it, or the trace id</p>`;
  const rows = traces.map((t) => html`<tr data-trace-id="${t.traceId}">
<td class="name"><a href="?trace=${t.traceId}">${t.name || t.traceId}</a><div class="mono muted">${t.traceId}</div></td>
<td>${t.type ?? '–'}</td><td class="mono">${t.startTime ?? '–'}</td><td class="num">${formatDuration(t.durationMs)}</td>
<td>${status(t)}</td><td class="num">${t.spans}</td><td class="num">${formatCount(t.tokens)}</td><td class="num">${formatCost(t.cost)}</td></tr>`);
  const table = traces.length === 0
    ? html`<p id="empty">No traces${query === '' ? ' stored yet' : ' match'}.</p>`
    : html`<table id="traces"><thead><tr><th>name</th><th>type</th><th>start</th><th class="num">duration</th><th>status</th>
<th class="num">spans</th><th class="num">tokens</th><th class="num">cost</th></tr></thead><tbody>${rows}</tbody></table>
${traces.length === limit ? html`<p class="muted">The ${limit} most recent; search to narrow.</p>` : ''}`;
  return layout(query === '' ? 'Recent traces' : `Search: ${query}`, html`${heading}${table}`, query);
}

function jsonPart(title: string, value: unknown): Markup {
  if (value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) return html``;
  return html`<section class="part ${title}"><h4>${title}</h4><pre>${stringifyJson(value, 2)}</pre></section>`;
}

function spanItem({ span, depth }: SpanAtDepth): Markup {
  const { attributes, ...fields } = span;
  const spanStatus = span.status_code === 'STATUS_CODE_ERROR' ? 'error' : span.status_code === 'STATUS_CODE_OK' ? 'ok' : 'unset';
  const indent = Math.min(depth, MAX_INDENT_LEVELS) * INDENT_PX;
  return html`<li class="span" data-span-id="${String(span.span_id)}" data-depth="${depth}" style="margin-left:${indent}px">
<details><summary><span class="name">${String(span.span_name ?? '')}</span><span class="muted">${spanType(span) ?? ''}</span>
<span class="num">${formatDuration(spanDurationMs(span))}</span><span class="${spanStatus}">${spanStatus}</span></summary>
${jsonPart('inputs', valueAt(attributes, 'ag', 'data', 'inputs'))}${jsonPart('outputs', valueAt(attributes, 'ag', 'data', 'outputs'))}
${jsonPart('metrics', valueAt(attributes, 'ag', 'metrics'))}${jsonPart('attributes', otherAttributes(attributes))}
${jsonPart('span', fields as SpanObject)}</details></li>`;
}

/** One trace as a tree: its spans in pre-order, each indented by its depth, details folded. */
export function tracePage(summary: TraceSummary, spans: SpanAtDepth[]): string {
  const body = html`<h2 id="trace-name">${summary.name}</h2>
<p><span class="mono">${summary.traceId}</span> · ${summary.type ?? '–'} · ${formatDuration(summary.durationMs)} · ${status(summary)}
· ${summary.spans} ${summary.spans === 1 ? 'span' : 'spans'} · tokens ${formatCount(summary.tokens)} · cost ${formatCost(summary.cost)}</p>
<ol class="spans" id="spans">${spans.map(spanItem)}</ol>`;
  return layout(summary.name || summary.traceId, body);
}

/** A short page for a trace id that is not valid or not stored. */
export function messagePage(title: string, message: string): string {
  return layout(title, html`<h2>${title}</h2><p id="message">${message}</p>`);
}
