import { describe, expect, it } from 'vitest';
import type { ServiceStatus } from '../../pipeline/status.ts';
import { assess } from './readiness.ts';

const rules = { failureThresholdMs: 30_000, highWaterPercent: 90 };
const NOW = Date.parse('2026-11-27T03:00:00Z');

function healthy(): ServiceStatus {
  return {
    receivers: [{ id: 'http', listening: true, endpoints: ['http://127.0.0.1:4319'] }],
    pipelines: [{
      id: 'traces',
      stream: { writable: true, bytes: 0, maxBytes: 1000 },
      exporters: [
        { exporter: 'file', pipeline: 'traces', failingSince: undefined, backlogSpans: 0 },
        { exporter: 'kafka', pipeline: 'traces', failingSince: undefined, backlogSpans: 12 },
      ],
    }],
  };
}

describe('readiness', () => {
  it('is ready when every receiver listens, the stream is writable and under its mark, and nothing fails', () => {
    const report = assess(healthy(), rules, NOW);
    expect(report).toEqual({
      live: true,
      ready: true,
      receivers: { http: { state: 'listening', ready: true, endpoints: ['http://127.0.0.1:4319'] } },
      pipelines: {
        traces: {
          stream: { state: 'writable', ready: true, bytes: 0, max_bytes: 1000, high_water_bytes: 900 },
          exporters: {
            file: { state: 'caught_up', ready: true, backlog_spans: 0 },
            kafka: { state: 'delivering', ready: true, backlog_spans: 12 },
          },
        },
      },
    });
  });

  it('is not ready while a receiver is not listening (starting, or shutting down)', () => {
    const status = healthy();
    status.receivers.push({ id: 'otlp', listening: false, endpoints: [] });
    const report = assess(status, rules, NOW);
    expect(report.ready).toBe(false);
    expect(report.receivers.otlp).toEqual({ state: 'not_listening', ready: false, endpoints: [] });
    expect(report.receivers.http.ready).toBe(true);
  });

  it('is not ready when a stream is not writable, with the reason', () => {
    const status = healthy();
    status.pipelines[0].stream = { writable: false, reason: 'ingest stream cannot write: disk full', bytes: 10, maxBytes: 1000 };
    const report = assess(status, rules, NOW);
    expect(report.ready).toBe(false);
    expect(report.pipelines.traces.stream).toMatchObject({ state: 'not_writable', ready: false, reason: 'ingest stream cannot write: disk full' });
  });

  it('is not ready from the high-water mark on (a percent of max_bytes)', () => {
    const status = healthy();
    status.pipelines[0].stream.bytes = 899;
    expect(assess(status, rules, NOW).ready).toBe(true);
    status.pipelines[0].stream.bytes = 900;
    const report = assess(status, rules, NOW);
    expect(report.ready).toBe(false);
    expect(report.pipelines.traces.stream.state).toBe('above_high_water');
    expect(assess(status, { ...rules, highWaterPercent: 100 }, NOW).ready).toBe(true);
  });

  it('stays ready while an exporter has failed for less than the threshold, and not from the threshold on', () => {
    const status = healthy();
    status.pipelines[0].exporters[1].failingSince = NOW - 29_999;
    const under = assess(status, rules, NOW);
    expect(under.ready).toBe(true);
    expect(under.pipelines.traces.exporters.kafka).toEqual({
      state: 'failing', ready: true, backlog_spans: 12, failing_since: new Date(NOW - 29_999).toISOString(), failing_for_ms: 29_999,
    });
    status.pipelines[0].exporters[1].failingSince = NOW - 30_000;
    const over = assess(status, rules, NOW);
    expect(over.ready).toBe(false);
    expect(over.pipelines.traces.exporters.kafka.ready).toBe(false);
    expect(over.pipelines.traces.exporters.file.ready).toBe(true);
  });
});
