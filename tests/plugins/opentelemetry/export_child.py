"""Run in a child process: set the SDK up from ``OTEL_*``, run ``turns`` two-round turns of
an instrumented client, print the slowest turn's seconds, and exit (flushing).

With ``raise`` as second argument the OTLP span exporter raises on every batch."""

from __future__ import annotations

import sys
import time

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, text_response, tool_call, tool_call_response
from ostinato_opentelemetry import configure_from_environment, instrument


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _raising_export(self: object, spans: object) -> object:
    raise RuntimeError("the exporter broke")


def main(turns: int, mode: str) -> None:
    if mode == "raise":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        OTLPSpanExporter.export = _raising_export  # type: ignore[method-assign,assignment]
    assert configure_from_environment(), "OTEL_* variables should ask for export"
    script: list[object] = []
    for _ in range(turns):
        script += [
            tool_call_response(tool_call("weather", {"city": "Oslo"}, id="c1"), usage=(5, 2, 7)),
            text_response("Sunny.", usage=(9, 1, 10)),
        ]
    client = instrument(
        ChatClient.builder(ScriptedChatModel(script)).default_tools(weather), provider_name="openai"
    ).build()
    slowest = 0.0
    for _ in range(turns):
        began = time.perf_counter()
        assert client.prompt("Weather?").call().content() == "Sunny."
        slowest = max(slowest, time.perf_counter() - began)
    print(f"slowest {slowest:.4f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
