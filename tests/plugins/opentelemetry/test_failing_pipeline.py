"""A span processor that raises never reaches the turn: each kind of failure is logged
once and the turn's answer is unchanged."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from ostinato import ChatClient, tool
from ostinato.instrumentation import add_tool_scope
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import ModelCallSpanAdvisor, OpenTelemetrySettings, TurnSpanAdvisor
from ostinato_opentelemetry._telemetry import Telemetry
from ostinato_opentelemetry._tool_span import tool_scope


class _Raising(SpanProcessor):
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        raise RuntimeError("processor broke on start")

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("processor broke on end")


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@pytest.fixture
def broken_telemetry() -> Iterator[Telemetry]:
    provider = TracerProvider()
    provider.add_span_processor(_Raising())
    normal = Telemetry.create(OpenTelemetrySettings(), "openai")
    telemetry = Telemetry(
        OpenTelemetrySettings(),
        "openai",
        provider.get_tracer("broken"),
        normal.duration,
        normal.token_usage,
    )
    remove = add_tool_scope(tool_scope(telemetry))
    yield telemetry
    remove()


def test_a_raising_span_processor_never_reaches_the_turn(
    broken_telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."] * 2
    )
    client = (
        ChatClient.builder(model)
        .default_tools(weather)
        .default_advisors(TurnSpanAdvisor(broken_telemetry), ModelCallSpanAdvisor(broken_telemetry))
        .build()
    )

    with caplog.at_level(logging.WARNING):
        assert client.prompt("Weather?").call().content() == "Sunny."
        assert "".join(client.prompt("Weather?").stream().content()) == "Sunny."

    assert model.remaining == 0
    starting = [r for r in caplog.records if "while starting a span" in r.getMessage()]
    assert len(starting) == 1, [r.getMessage() for r in caplog.records]
    assert "RuntimeError: processor broke on start" in starting[0].getMessage()
