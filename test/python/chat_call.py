"""One chat call through the OpenAI Python SDK against OPENAI_BASE_URL, traced by the SDK named on the command
line and exported to tracehop (RECEIVER_URL is a receiver's base URL, `http://host:port`):

- openinference: OpenInference's OpenAI instrumentation, OTLP/HTTP to {RECEIVER_URL}/v1/traces
- openllmetry:   OpenLLMetry's OpenAI instrumentation, the same way
- traceloop:     the traceloop SDK (Traceloop.init, which instruments OpenAI with OpenLLMetry) with the call
                 inside its decorators: @workflow capital_quiz -> @tool capital_lookup, @task ask_model
- langfuse:      the Langfuse SDK's OpenAI drop-in (langfuse.openai), which posts to
                 {RECEIVER_URL}/api/public/otel/v1/traces with Basic auth

Usage: chat_call.py SDK RECEIVER_URL OPENAI_BASE_URL [QUESTION]
Prints the answer on stdout.
"""
import os
import sys

sdk, receiver_url, openai_url = sys.argv[1:4]
question = sys.argv[4] if len(sys.argv) > 4 else "What is the capital of France?"
service = f"same-call-{sdk}"
traces_url = f"{receiver_url}/v1/traces"

MESSAGES = [
    {"role": "system", "content": "Answer in one word."},
    {"role": "user", "content": question},
]


def chat(client) -> str:
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, temperature=0.2, max_tokens=16)
    return reply.choices[0].message.content


def otel_provider():
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=traces_url)))
    return provider


def instrumented(instrumentor_class) -> str:
    from openai import OpenAI

    provider = otel_provider()
    instrumentor_class().instrument(tracer_provider=provider)
    answer = chat(OpenAI(base_url=openai_url, api_key="sk-test-not-a-secret"))
    provider.force_flush()
    provider.shutdown()
    return answer


def traceloop() -> str:
    # Only the spans, to the exporter given here: no metrics, logs or usage telemetry to Traceloop's cloud.
    os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false", TRACELOOP_LOGGING_ENABLED="false")
    from openai import OpenAI
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from traceloop.sdk import Traceloop
    from traceloop.sdk.decorators import task, tool, workflow
    from traceloop.sdk.instruments import Instruments

    # disable_batch: each span is exported as it ends, so nothing is left to flush at exit.
    Traceloop.init(app_name=service, exporter=OTLPSpanExporter(endpoint=traces_url), disable_batch=True,
                   instruments={Instruments.OPENAI}, resource_attributes={"service.name": service})
    client = OpenAI(base_url=openai_url, api_key="sk-test-not-a-secret")

    @tool(name="capital_lookup")
    def capital_lookup(country, source="atlas"):
        return {"country": country, "source": source}

    @task(name="ask_model")
    def ask_model(prompt):
        return chat(client)

    @workflow(name="capital_quiz")
    def capital_quiz(text):
        capital_lookup("France")
        return {"answer": ask_model(prompt=text)}

    return capital_quiz(question)["answer"]


def langfuse() -> str:
    from langfuse import Langfuse

    client = Langfuse(public_key="pk-lf-same-call", secret_key="sk-lf-same-call", base_url=receiver_url,
                      flush_at=1, environment="test")
    from langfuse.openai import OpenAI  # the drop-in uses the client made above

    answer = chat(OpenAI(base_url=openai_url, api_key="sk-test-not-a-secret"))
    client.flush()
    client.shutdown()
    return answer


if sdk == "openinference":
    from openinference.instrumentation.openai import OpenAIInstrumentor as OpenInference
    print(instrumented(OpenInference))
elif sdk == "openllmetry":
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor as OpenLLMetry
    print(instrumented(OpenLLMetry))
elif sdk == "traceloop":
    print(traceloop())
elif sdk == "langfuse":
    print(langfuse())
else:
    sys.exit(f"unknown SDK {sdk}")
