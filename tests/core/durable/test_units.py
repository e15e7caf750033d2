"""The durable seam: units run through the durable engine's wrapper, are recorded as JSON
and, replayed, are not run again — on call and stream."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, tool
from ostinato.durable import (
    UnitKind,
    current_turn,
    durable_turn,
    idempotency_key,
)
from ostinato.errors import ConfigurationError, ToolExecutionError, ToolTimeoutError
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.units import current_unit
from ostinato.units._codecs import decode_tool_outcome, encode_tool_outcome
from tests.core.durable.journal import Journal

MODES = ("call", "stream")


class Counter:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.keys: list[str | None] = []

        @tool(description="The weather of a city")
        def weather(city: str) -> str:
            self.calls.append(city)
            self.keys.append(idempotency_key())
            return f"{city}: sunny"

        @tool(description="Always fails")
        def broken() -> str:
            raise RuntimeError("boom")

        self.tools = [weather, broken]


def script() -> list[object]:
    return [
        tool_call_response(("weather", {"city": "Paris"}), ("broken", {})),
        tool_call_response(("weather", {"city": "Rome"})),
        "Sunny in both.",
    ]


async def ask(model: ScriptedChatModel, counter: Counter, mode: str, journal: Journal) -> str:
    client = ChatClient.builder(model).unit_wrappers(journal.wrapper()).build()
    spec = client.prompt("Weather?").tools(*counter.tools)
    if mode == "call":
        return (await spec.call().acontent()) or ""
    return "".join([t async for t in spec.stream().acontent()])


@pytest.fixture
def journal():
    return Journal()


@pytest.mark.parametrize("mode", MODES)
async def test_a_turn_runs_each_unit_once_through_the_interceptor(journal, mode):
    counter = Counter()
    model = ScriptedChatModel(script())
    with durable_turn("t-1"):
        answer = await ask(model, counter, mode, journal)
    model_kind = UnitKind.MODEL_CALL if mode == "call" else UnitKind.MODEL_STREAM
    assert answer == "Sunny in both."
    assert [k for k, _ in journal.ran] == [
        model_kind,
        UnitKind.TOOL_CALL,
        UnitKind.TOOL_CALL,
        model_kind,
        UnitKind.TOOL_CALL,
        model_kind,
    ]
    assert counter.calls == ["Paris", "Rome"]
    assert counter.keys == ["t-1/2", "t-1/5"]  # the same on every replay of the turn
    first_round, paris = journal.inputs[0], journal.inputs[1]
    assert [m["text"] for m in first_round["messages"]] == ["Weather?"]
    assert [t["name"] for t in first_round["tools"]] == ["weather", "broken"]
    assert paris["call"]["name"] == "weather" and "Paris" in paris["call"]["arguments"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("done", [0, 1, 3, 4, 6])
async def test_a_replayed_turn_runs_only_the_units_not_recorded(journal, mode, done):
    with durable_turn("t-1"):
        first = await ask(ScriptedChatModel(script()), Counter(), mode, journal)
    recorded = journal.first(done)
    counter = Counter()
    rounds = [e for k, e in sorted(recorded.entries.items()) if e[0].startswith("model")]
    model = ScriptedChatModel(script()[len(rounds) :])
    with durable_turn("t-1"):
        again = await ask(model, counter, mode, recorded)
    assert again == first == "Sunny in both."
    assert model.call_count == 3 - len(rounds)
    ran_tools = [n for k, n in recorded.ran if k == UnitKind.TOOL_CALL and n == "weather"]
    assert len(counter.calls) == len(ran_tools)


async def test_outside_a_durable_turn_nothing_is_intercepted(journal):
    assert current_unit() is None
    assert current_turn() is None and idempotency_key() is None
    answer = await ask(ScriptedChatModel(script()), Counter(), "call", journal)
    assert answer == "Sunny in both." and journal.ran == []


def test_one_engine_per_process(journal):
    builder = ChatClient.builder(ScriptedChatModel([])).unit_wrappers(journal.wrapper())
    with pytest.raises(ConfigurationError, match="one durable engine per process"):
        builder.unit_wrappers(Journal().wrapper("second")).build()


def test_tool_outcomes_round_trip_as_json():
    timeout = ToolTimeoutError("slow", tool_name="t", timeout=2.0)
    back = decode_tool_outcome(encode_tool_outcome(timeout))
    assert isinstance(back, ToolTimeoutError) and back.timeout == 2.0 and str(back) == "slow"
    failed = decode_tool_outcome(encode_tool_outcome(ToolExecutionError("x", tool_name="t")))
    assert isinstance(failed, ToolExecutionError) and failed.tool_name == "t"
    assert decode_tool_outcome(encode_tool_outcome("text")) == "text"
