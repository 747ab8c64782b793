"""Sends spans to an OTLP/HTTP endpoint with the real OpenTelemetry Python SDK, unmodified.

Usage: send_spans.py --endpoint http://127.0.0.1:4318/v1/traces [--compression gzip|none]

Prints one JSON document on stdout: {"export": "SUCCESS"|"FAILURE", "spans": [...]}, where each span is
what the SDK itself recorded (ids as hex, times as decimal nanosecond strings, attribute tuples as lists),
so the test compares tracehop's output with the SDK's own view rather than with a second copy of the
test's expectations.
"""

import argparse
import json
import sys

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

# Fixed times make the comparison exact to the nanosecond (the SDK's clock has only microseconds).
BASE_NS = 1_776_363_498_123_456_789


class RecordingExporter(SpanExporter):
    """Forwards to the real OTLP exporter and remembers what it handed over and whether it succeeded."""

    def __init__(self, inner):
        self.inner = inner
        self.spans = []
        self.results = []

    def export(self, spans):
        result = self.inner.export(spans)
        self.spans.extend(spans)
        self.results.append(result)
        return result

    def shutdown(self):
        self.inner.shutdown()

    def force_flush(self, timeout_millis=30000):
        return True


def plain(value):
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def attributes(attrs):
    return {k: plain(v) for k, v in (attrs or {}).items()}


def describe(span):
    ctx = span.get_span_context()
    return {
        "trace_id": format(ctx.trace_id, "032x"),
        "span_id": format(ctx.span_id, "016x"),
        "parent_id": format(span.parent.span_id, "016x") if span.parent else None,
        "name": span.name,
        # SDK SpanKind values are 0-based without UNSPECIFIED; OTLP numbers are one higher.
        "kind": span.kind.value + 1,
        "start_ns": str(span.start_time),
        "end_ns": str(span.end_time),
        "status_code": span.status.status_code.value,
        "status_message": span.status.description,
        "attributes": attributes(span.attributes),
        "events": [
            {"name": e.name, "time_ns": str(e.timestamp), "attributes": attributes(e.attributes)}
            for e in span.events
        ],
        "links": [
            {
                "trace_id": format(l.context.trace_id, "032x"),
                "span_id": format(l.context.span_id, "016x"),
                "attributes": attributes(l.attributes),
            }
            for l in span.links
        ],
        "resource": attributes(span.resource.attributes),
        "scope": {
            "name": span.instrumentation_scope.name,
            "version": span.instrumentation_scope.version,
        },
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--compression", choices=["gzip", "none"], default="gzip")
    args = parser.parse_args()

    compression = Compression.Gzip if args.compression == "gzip" else Compression.NoCompression
    recorder = RecordingExporter(OTLPSpanExporter(endpoint=args.endpoint, compression=compression, timeout=10))
    provider = TracerProvider(
        resource=Resource.create({"service.name": "py-shop", "deployment.environment": "test", "host.cpus": 2})
    )
    # Simple: one export call per span, so each span's result is known and nothing waits on a timer.
    provider.add_span_processor(SimpleSpanProcessor(recorder))
    tracer = provider.get_tracer("tracehop-interop-python", "0.3.1")
    other = provider.get_tracer("second.scope")

    root = tracer.start_span(
        "agent run",
        kind=SpanKind.SERVER,
        start_time=BASE_NS,
        attributes={
            "gen_ai.operation.name": "chat",
            "text.unicode": "héllo wörld ✓ 🚀",
            "text.empty": "",
            "count": 42,
            "negative": -7,
            "int64.max": 9223372036854775807,
            "int64.min": -9223372036854775808,
            "ratio": 0.125,
            "flag.on": True,
            "flag.off": False,
            "list.str": ["a", "b", "c"],
            "list.int": [1, 2, 3],
            "list.float": [1.5, -2.25],
            "list.bool": [True, False],
        },
    )
    root.add_event("started", {"step": 1, "note": "first"}, timestamp=BASE_NS + 1_000)
    root.add_event("no attributes", timestamp=BASE_NS + 2_000)

    from opentelemetry import trace

    parent_ctx = trace.set_span_in_context(root)
    child = tracer.start_span(
        "llm call",
        context=parent_ctx,
        kind=SpanKind.CLIENT,
        start_time=BASE_NS + 10_000,
        attributes={"gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 12},
        links=[Link(root.get_span_context(), {"link.kind": "follows", "link.n": 3})],
    )
    child.set_status(Status(StatusCode.ERROR, "rate limited"))
    child.add_event("exception", {"exception.type": "RateLimit", "exception.message": "429"}, timestamp=BASE_NS + 20_001)
    child.end(end_time=BASE_NS + 30_000)

    producer = other.start_span("enqueue", context=parent_ctx, kind=SpanKind.PRODUCER, start_time=BASE_NS + 40_000)
    producer.set_status(Status(StatusCode.OK))
    producer.end(end_time=BASE_NS + 50_000)

    consumer = other.start_span("dequeue", kind=SpanKind.CONSUMER, start_time=BASE_NS + 60_000,
                                links=[Link(producer.get_span_context())])
    consumer.end(end_time=BASE_NS + 70_999)

    internal = tracer.start_span("internal step", context=parent_ctx, kind=SpanKind.INTERNAL, start_time=BASE_NS + 80_000)
    internal.end(end_time=BASE_NS + 80_001)

    root.end(end_time=BASE_NS + 1_000_000_007)
    provider.shutdown()

    ok = all(r == SpanExportResult.SUCCESS for r in recorder.results) and len(recorder.results) > 0
    json.dump({"export": "SUCCESS" if ok else "FAILURE", "spans": [describe(s) for s in recorder.spans]}, sys.stdout)
    sys.stdout.write("\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
