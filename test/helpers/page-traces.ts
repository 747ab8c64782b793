// Known traces for the page's tests (receivers/http/page/page.test.ts, test/browser/page.test.ts), in the flat body of
// POST /tracing/spans/ingest: an agent with two LLM calls (inputs, outputs, tokens, costs), a failed
// tool call, and a span whose name and inputs are markup, which the page must show as text.
export const AGENT = '11111111111111111111111111111111';
export const FAILED = '22222222222222222222222222222222';
export const HOSTILE = '33333333333333333333333333333333';
export const SCRIPT_NAME = '<script>alert(1)</script>';
export const HOSTILE_INPUT = '"><img src=x onerror=alert(2)>';

const at = (time: string) => `2026-11-20T10:${time}Z`;

const llm = (spanId: string, start: string, end: string, prompt: number, completion: number, cost: number, answer: string) => ({
  trace_id: AGENT, span_id: spanId, parent_id: 'a000000000000001', span_name: 'openai.chat', start_time: at(start), end_time: at(end),
  status_code: 'STATUS_CODE_OK',
  attributes: {
    ag: {
      type: { span: 'chat' },
      data: { inputs: { prompt: 'capital of France?' }, outputs: { completion: answer } },
      metrics: { tokens: { incremental: { prompt, completion, total: prompt + completion } }, costs: { incremental: { total: cost } } },
    },
    'gen_ai.request.model': 'gpt-4o-mini',
  },
});

export const PAGE_SPANS = [
  { trace_id: AGENT, span_id: 'a000000000000001', span_name: 'travel-agent', start_time: at('00:00'), end_time: at('00:02.5'),
    status_code: 'STATUS_CODE_OK',
    attributes: { ag: { type: { trace: 'invocation', span: 'agent' }, data: { inputs: { question: 'capital of France?' }, outputs: { answer: 'Paris' } } } } },
  llm('a000000000000002', '00:00.1', '00:01', 12, 30, 0.00025, 'Paris'),
  llm('a000000000000003', '00:01.2', '00:02', 20, 8, 0.00015, 'It is Paris.'),
  { trace_id: FAILED, span_id: 'b000000000000001', span_name: 'weather-tool', start_time: at('01:00'), end_time: at('01:00.4'),
    status_code: 'STATUS_CODE_ERROR', status_message: 'upstream timeout', attributes: { ag: { type: { span: 'tool' } } } },
  { trace_id: HOSTILE, span_id: 'c000000000000001', span_name: SCRIPT_NAME, start_time: at('02:00'), end_time: at('02:01'),
    attributes: { ag: { data: { inputs: { html: HOSTILE_INPUT } } }, [SCRIPT_NAME]: HOSTILE_INPUT } },
];

/** How many spans of each trace PAGE_SPANS holds. */
export const SPANS_PER_TRACE: Record<string, number> = { [AGENT]: 3, [FAILED]: 1, [HOSTILE]: 1 };
