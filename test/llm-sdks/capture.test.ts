// The captured payloads (test/fixtures/sdk-payloads) are what the pinned SDKs send today: capture.ts run
// again gives, per SDK, the same spans (names, kinds, attribute keys, scopes, event names) and the
// paths they were posted to. Ids, times and ports differ from run to run and are not compared. When an
// SDK bump makes this fail, run `node test/llm-sdks/capture.ts` and review the fixtures' diff.
import { describe, expect, it } from 'vitest';
import type { Span } from '../../model/span.ts';
import { VENV_SETUP_TIMEOUT_MS } from '../python/venv.ts';
import { captureAll } from './capture.ts';
import { CAPTURED_SDKS, capturedSpans } from './payloads.ts';

function shape(spans: Span[]): string[] {
  return spans.map((s) => JSON.stringify({
    name: s.name, kind: s.kind, scope: s.scope?.name, attributes: [...s.attributes.keys()].sort(),
    events: s.events?.map((e) => e.name), resource: [...(s.resource?.keys() ?? [])].sort(),
  })).sort();
}

describe('the captured SDK payloads', () => {
  it('are what the pinned SDKs send, to the paths each posts to', async () => {
    const captured = await captureAll();
    expect([...captured.keys()]).toEqual([...CAPTURED_SDKS]);
    for (const sdk of CAPTURED_SDKS) {
      const { paths, spans } = captured.get(sdk)!;
      expect(paths, sdk).toEqual([sdk.startsWith('langfuse') ? '/api/public/otel/v1/traces' : '/v1/traces']);
      expect(shape(spans), sdk).toEqual(shape(capturedSpans(sdk)));
    }
  }, VENV_SETUP_TIMEOUT_MS);
});
