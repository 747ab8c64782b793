"""Sends one agent span with a chat generation inside through the real Langfuse Python SDK, unmodified.

Usage: send_langfuse.py --base-url http://127.0.0.1:4318 --secret-key KEY

The SDK exports OTLP/HTTP to {base_url}/api/public/otel/v1/traces with HTTP Basic auth (public key as the
user, secret key as the password). Prints {"trace_id": ..., "agent": span id, "chat": span id} on stdout.
"""

import argparse
import json

from langfuse import Langfuse, propagate_attributes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--secret-key", required=True)
    args = parser.parse_args()

    langfuse = Langfuse(public_key="pk-lf-tracehop-test", secret_key=args.secret_key, base_url=args.base_url,
                        environment="test", release="r-1", flush_at=1)
    with propagate_attributes(user_id="user-7", session_id="session-3", tags=["demo"], trace_name="qa"), \
            langfuse.start_as_current_observation(name="agent", as_type="agent",
                                                  input={"question": "capital of France?"}) as agent:
        with langfuse.start_as_current_observation(
            name="chat", as_type="generation", model="gpt-4o-mini",
            model_parameters={"temperature": 0.2, "max_tokens": 64},
            input=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "capital of France?"}],
        ) as chat:
            chat.update(output={"role": "assistant", "content": "Paris"},
                        usage_details={"input": 12, "output": 3, "total": 15},
                        cost_details={"input": 0.0018, "output": 0.0018, "total": 0.0036})
            chat_id = chat.id
        agent.update(output={"answer": "Paris"})
        result = {"trace_id": agent.trace_id, "agent": agent.id, "chat": chat_id}
    langfuse.flush()
    langfuse.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
