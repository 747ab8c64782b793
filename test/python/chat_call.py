"""One chat call through the OpenAI Python SDK, traced by the instrumentation named on the command line
(openinference or openllmetry), exported over OTLP/HTTP to tracehop.

Usage: chat_call.py INSTRUMENTATION OTLP_TRACES_URL OPENAI_BASE_URL
"""
import sys

from openai import OpenAI
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

instrumentation, traces_url, openai_url = sys.argv[1:4]
provider = TracerProvider(resource=Resource.create({"service.name": f"same-call-{instrumentation}"}))
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=traces_url)))

if instrumentation == "openinference":
    from openinference.instrumentation.openai import OpenAIInstrumentor
elif instrumentation == "openllmetry":
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor
else:
    sys.exit(f"unknown instrumentation {instrumentation}")
OpenAIInstrumentor().instrument(tracer_provider=provider)

client = OpenAI(base_url=openai_url, api_key="sk-test-not-a-secret")
reply = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": "Answer in one word."},
        {"role": "user", "content": "What is the capital of France?"},
    ],
    temperature=0.2,
    max_tokens=16,
)
print(reply.choices[0].message.content)
provider.force_flush()
provider.shutdown()
