"""Advisor spans (``OSTINATO_OTEL_ADVISOR_SPANS``): one per advisor invocation, off by
default; in a stream the tool calling advisor's span covers the whole stream and the
model calls of every round nest under it."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, tool
from ostinato.advisors import Ordered
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import OpenTelemetrySettings, instrument
from tests.core.advisors.fakes import NamedAdvisor
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import by_name, tree


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


#: A user advisor outside the tool loop.
GUARD = NamedAdvisor("Guard", Ordered.HIGHEST_PRECEDENCE + 100)


def _client(advisor_spans: bool) -> ChatClient:
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."]
    )
    builder = ChatClient.builder(model).default_tools(weather).default_advisors(GUARD)
    settings = OpenTelemetrySettings(advisor_spans=advisor_spans)
    return instrument(builder, provider_name="openai", settings=settings).build()


_TREE = [
    (
        "invoke_agent",
        "INTERNAL",
        [
            (
                "advisor Guard",
                "INTERNAL",
                [
                    (
                        "advisor Tool Calling Advisor",
                        "INTERNAL",
                        [
                            ("chat", "CLIENT", []),
                            ("execute_tool weather", "INTERNAL", []),
                            ("chat", "CLIENT", []),
                        ],
                    )
                ],
            )
        ],
    )
]


def test_a_call_has_one_span_per_advisor_with_the_rounds_under_the_tool_loop(
    recorded: Recorded,
) -> None:
    assert _client(advisor_spans=True).prompt("Weather?").call().content() == "Sunny."

    spans = recorded.spans()
    assert tree(spans) == _TREE
    [loop] = by_name(spans, "advisor Tool Calling Advisor")
    assert dict(loop.attributes or {}) == {
        "ostinato.advisor.name": "Tool Calling Advisor",
        "ostinato.advisor.order": Ordered.HIGHEST_PRECEDENCE + 300,
        "ostinato.advisor.stream": False,
    }


async def test_a_stream_nests_every_model_call_under_the_tool_calling_advisor(
    recorded: Recorded,
) -> None:
    client = _client(advisor_spans=True)

    pieces = [p async for p in client.prompt("Weather?").stream().acontent()]

    assert "".join(pieces) == "Sunny."
    spans = recorded.spans()
    assert tree(spans) == _TREE
    [loop] = by_name(spans, "advisor Tool Calling Advisor")
    assert (loop.attributes or {})["ostinato.advisor.stream"] is True
    # The advisor's span covers the whole stream: it ends after the last model call.
    last_chat = max(s.end_time or 0 for s in by_name(spans, "chat"))
    assert (loop.end_time or 0) >= last_chat


def test_a_sync_stream_nests_the_same_way(recorded: Recorded) -> None:
    client = _client(advisor_spans=True)

    assert "".join(client.prompt("Weather?").stream().content()) == "Sunny."

    assert tree(recorded.spans()) == _TREE


def test_advisor_spans_are_off_by_default(recorded: Recorded) -> None:
    _client(advisor_spans=True)  # installs the advisor scope for the process
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."]
    )
    builder = ChatClient.builder(model).default_tools(weather).default_advisors(GUARD)
    quiet = instrument(builder, settings=OpenTelemetrySettings()).build()

    assert quiet.prompt("Weather?").call().content() == "Sunny."

    assert [s.name for s in recorded.spans() if s.name.startswith("advisor ")] == []
    assert len(recorded.spans()) == 4


def test_a_failing_turn_marks_the_advisor_spans(recorded: Recorded) -> None:
    model = ScriptedChatModel([ConnectionError("provider down")])
    settings = OpenTelemetrySettings(advisor_spans=True)
    client = instrument(ChatClient.builder(model), settings=settings).build()

    with pytest.raises(ConnectionError):
        client.prompt("Hi").call().content()

    [loop] = by_name(recorded.spans(), "advisor Tool Calling Advisor")
    assert (loop.attributes or {})["error.type"] == "ConnectionError"
