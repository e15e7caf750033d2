"""The exact span tree of a turn: the turn span, a ``chat`` span per model call and an
``execute_tool`` span per tool call, current while the tool runs."""

from __future__ import annotations

import asyncio
import threading

import pytest
from opentelemetry import trace

from ostinato import ChatClient, tool
from ostinato.prompt import ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call, tool_call_response
from ostinato_opentelemetry import OpenTelemetrySettings, instrument
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import by_name, tree

_user_tracer = trace.get_tracer("user.code")


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    with _user_tracer.start_as_current_span("sync user span"):
        return f"sunny in {city} ({threading.current_thread().name})"


@tool
async def population(city: str) -> int:
    """How many people live in a city."""
    with _user_tracer.start_as_current_span("async user span"):
        await asyncio.sleep(0)
        return 42


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise LookupError(f"no data for {city}")


def _client(model: ScriptedChatModel, *tools: object, **settings: object) -> ChatClient:
    builder = ChatClient.builder(model).default_tools(*tools)
    options = OpenTelemetrySettings(**settings)  # type: ignore[arg-type]
    return instrument(builder, provider_name="openai", settings=options).build()


def _two_rounds() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            tool_call_response(
                tool_call("weather", {"city": "Paris"}, id="c1"),
                tool_call("population", {"city": "Paris"}, id="c2"),
                usage=(10, 5, 15),
                id="r1",
                model="gpt-x-2025",
            ),
            text_response("Sunny, 42 people.", usage=(30, 7, 37), id="r2", model="gpt-x-2025"),
        ],
        default_options=ToolCallingChatOptions(model="gpt-x", temperature=0.2, max_tokens=99),
    )


_EXPECTED_TREE = [
    (
        "invoke_agent",
        "INTERNAL",
        [
            ("chat gpt-x", "CLIENT", []),
            ("execute_tool weather", "INTERNAL", [("sync user span", "INTERNAL", [])]),
            ("execute_tool population", "INTERNAL", [("async user span", "INTERNAL", [])]),
            ("chat gpt-x", "CLIENT", []),
        ],
    )
]


def _sorted_tree(spans: list[object]) -> list[object]:
    # Parallel tools start in either order: compare the tools as a set of subtrees.
    [(name, kind, children)] = spans  # type: ignore[misc]
    chats = [c for c in children if c[0].startswith("chat")]
    tools = sorted(c for c in children if c[0].startswith("execute_tool"))
    return [(name, kind, [chats[0], *tools, *chats[1:]])]


def _expected_sorted() -> list[object]:
    return _sorted_tree(_EXPECTED_TREE)  # type: ignore[arg-type]


def test_a_two_round_call_makes_the_exact_tree(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    assert client.prompt("Weather?").call().content() == "Sunny, 42 people."

    spans = recorded.spans()
    assert _sorted_tree(tree(spans)) == _expected_sorted()
    assert len({s.context.trace_id for s in spans}) == 1


async def test_a_two_round_async_stream_makes_the_exact_tree(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    pieces = [p async for p in client.prompt("Weather?").stream().acontent()]

    assert "".join(pieces) == "Sunny, 42 people."
    spans = recorded.spans()
    assert _sorted_tree(tree(spans)) == _expected_sorted()
    assert len({s.context.trace_id for s in spans}) == 1
    first, _second = by_name(spans, "chat gpt-x")
    assert first.attributes is not None and first.attributes["gen_ai.request.stream"] is True
    assert first.attributes["gen_ai.response.time_to_first_chunk"] >= 0


def test_a_two_round_sync_stream_makes_the_exact_tree(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    assert "".join(client.prompt("Weather?").stream().content()) == "Sunny, 42 people."

    assert _sorted_tree(tree(recorded.spans())) == _expected_sorted()


async def test_a_two_round_async_call_makes_the_exact_tree(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    assert await client.prompt("Weather?").call().acontent() == "Sunny, 42 people."

    assert _sorted_tree(tree(recorded.spans())) == _expected_sorted()


def test_model_call_spans_carry_the_conventions_attributes(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    client.prompt("Weather?").call().content()

    first, second = by_name(recorded.spans(), "chat gpt-x")
    assert dict(first.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-x",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 99,
        "gen_ai.response.id": "r1",
        "gen_ai.response.model": "gpt-x-2025",
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
    }
    assert second.attributes is not None
    assert second.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert second.attributes["gen_ai.usage.input_tokens"] == 30
    assert first.kind is trace.SpanKind.CLIENT


def test_tool_spans_carry_the_conventions_attributes(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    client.prompt("Weather?").call().content()

    [span] = by_name(recorded.spans(), "execute_tool weather")
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "weather",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "The weather in a city.",
    }
    assert span.status.is_ok


def test_a_failing_tool_marks_its_span_and_the_turn_goes_on(recorded: Recorded) -> None:
    model = ScriptedChatModel(
        [tool_call_response(tool_call("broken", {"city": "Oslo"}, id="b1")), "Sorry."]
    )
    client = _client(model, broken)

    assert client.prompt("Weather?").call().content() == "Sorry."

    [span] = by_name(recorded.spans(), "execute_tool broken")
    assert span.attributes is not None and span.attributes["error.type"] == "LookupError"
    assert span.status.status_code is trace.StatusCode.ERROR
    [turn] = by_name(recorded.spans(), "invoke_agent")
    assert turn.status.status_code is trace.StatusCode.UNSET


def test_a_failing_model_call_marks_its_span_and_the_turn(recorded: Recorded) -> None:
    model = ScriptedChatModel([ConnectionError("provider down")])
    client = _client(model)

    with pytest.raises(ConnectionError):
        client.prompt("Hi").call().content()

    spans = recorded.spans()
    assert tree(spans) == [("invoke_agent", "INTERNAL", [("chat", "CLIENT", [])])]
    for span in spans:
        assert span.attributes is not None and span.attributes["error.type"] == "ConnectionError"
        assert span.status.status_code is trace.StatusCode.ERROR


async def test_fifty_concurrent_conversations_keep_their_own_traces(recorded: Recorded) -> None:
    def respond(prompt: object) -> object:
        messages = prompt.messages  # type: ignore[attr-defined]
        if len(messages) == 1:
            city = messages[0].text
            return tool_call_response(tool_call("weather", {"city": city}, id=f"id-{city}"))
        return text_response("done")

    client = _client(ScriptedChatModel(responder=respond, latency=0.001), weather)

    async def one(i: int) -> None:
        assert await client.prompt(f"city{i}").call().acontent() == "done"

    await asyncio.gather(*(one(i) for i in range(50)))

    spans = recorded.spans()
    turns = by_name(spans, "invoke_agent")
    assert len(turns) == 50 and len(spans) == 50 * 5
    for turn in turns:
        members = [s for s in spans if s.context.trace_id == turn.context.trace_id]
        [tool_span] = [s for s in members if s.name == "execute_tool weather"]
        city = str((tool_span.attributes or {})["gen_ai.tool.call.id"]).removeprefix("id-")
        [user] = [s for s in members if s.name == "sync user span"]
        assert user.parent is not None and user.parent.span_id == tool_span.context.span_id
        assert tree(members) == [
            (
                "invoke_agent",
                "INTERNAL",
                [
                    ("chat", "CLIENT", []),
                    ("execute_tool weather", "INTERNAL", [("sync user span", "INTERNAL", [])]),
                    ("chat", "CLIENT", []),
                ],
            )
        ], city


def test_content_capture_is_off_by_default_and_bounded_when_on(recorded: Recorded) -> None:
    big = "x" * 5_000_000
    model = ScriptedChatModel(
        [tool_call_response(tool_call("weather", {"city": big}, id="c1")), "ok"]
    )
    client = _client(model, weather, capture_content=True, max_attribute_length=1000)

    client.prompt("Weather?").system("Be brief.").call().content()

    [tool_span] = by_name(recorded.spans(), "execute_tool weather")
    attributes = tool_span.attributes or {}
    arguments = str(attributes["gen_ai.tool.call.arguments"])
    assert len(arguments) == 1000 and arguments.endswith("chars]")
    assert len(str(attributes["gen_ai.tool.call.result"])) == 1000
    first, second = by_name(recorded.spans(), "chat")
    assert len(str((first.attributes or {})["gen_ai.input.messages"])) <= 1000
    assert (first.attributes or {})["gen_ai.system_instructions"] == (
        '[{"type": "text", "content": "Be brief."}]'
    )
    assert '"finish_reason": "stop"' in str((second.attributes or {})["gen_ai.output.messages"])


def test_no_content_without_opting_in(recorded: Recorded) -> None:
    client = _client(_two_rounds(), weather, population)

    client.prompt("Weather?").call().content()

    for span in recorded.spans():
        keys = set(span.attributes or {})
        assert not keys & {
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.system_instructions",
            "gen_ai.tool.call.arguments",
            "gen_ai.tool.call.result",
        }
