"""A span processor that raises never reaches the turn: each kind of failure is logged
once and the turn's answer is unchanged. An exporter that blocks behind the SDK's batch
processor never delays a turn."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import OpenTelemetrySettings, TurnSpanAdvisor
from ostinato_opentelemetry._instrument import wrappers_of
from ostinato_opentelemetry._telemetry import Telemetry


class _Raising(SpanProcessor):
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        raise RuntimeError("processor broke on start")

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("processor broke on end")


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class _Blocking(SpanExporter):
    """Blocks in ``export`` until released (at most 30 s)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.entered.set()
        self.release.wait(30)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


def _telemetry_on(provider: TracerProvider) -> Telemetry:
    normal = Telemetry.create(OpenTelemetrySettings(), "openai")
    return Telemetry(
        OpenTelemetrySettings(),
        "openai",
        provider.get_tracer("broken"),
        normal.duration,
        normal.token_usage,
    )


@pytest.fixture
def broken_telemetry() -> Telemetry:
    provider = TracerProvider()
    provider.add_span_processor(_Raising())
    return _telemetry_on(provider)


def _client(telemetry: Telemetry, model: ScriptedChatModel) -> ChatClient:
    return (
        ChatClient.builder(model)
        .default_tools(weather)
        .default_advisors(TurnSpanAdvisor(telemetry))
        .unit_wrappers(*wrappers_of(telemetry))
        .build()
    )


def test_an_exporter_that_blocks_never_delays_a_turn() -> None:
    exporter = _Blocking()
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(
            exporter, max_queue_size=16, max_export_batch_size=4, schedule_delay_millis=1
        )
    )
    telemetry = _telemetry_on(provider)
    turns = 30
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."] * (turns + 1)
    )
    client = _client(telemetry, model)
    try:
        assert client.prompt("Weather?").call().content() == "Sunny."
        assert exporter.entered.wait(10), "the exporter was never called"
        slowest = 0.0
        for _ in range(turns):  # the exporter is blocked, the queue fills and overflows
            began = time.perf_counter()
            assert client.prompt("Weather?").call().content() == "Sunny."
            slowest = max(slowest, time.perf_counter() - began)
    finally:
        exporter.release.set()
        provider.shutdown()

    assert model.remaining == 0
    assert slowest < 0.5, f"a turn took {slowest:.3f} s while the exporter was blocked"


def test_a_raising_span_processor_never_reaches_the_turn(
    broken_telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."] * 2
    )
    client = _client(broken_telemetry, model)

    with caplog.at_level(logging.WARNING):
        assert client.prompt("Weather?").call().content() == "Sunny."
        assert "".join(client.prompt("Weather?").stream().content()) == "Sunny."

    assert model.remaining == 0
    starting = [r for r in caplog.records if "while starting a span" in r.getMessage()]
    assert len(starting) == 1, [r.getMessage() for r in caplog.records]
    assert "RuntimeError: processor broke on start" in starting[0].getMessage()
