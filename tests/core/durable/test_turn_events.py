"""The loop events of durable turns: a replayed failure names the class the tool raised
as the first run did, and an engine cancelling a turn at a unit gives the listeners its
ending (a cancelled ``ToolFinished``, ``LoopEnded(cancelled)``) before the cancellation
goes on — on call and stream."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ostinato import ChatClient, tool
from ostinato.durable import Unit, UnitKind, durable_turn
from ostinato.events import (
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    ToolFailureKind,
    ToolFinished,
    ToolStarted,
)
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.units import UnitOrder, UnitWrapper
from tests.core.durable.journal import Journal

MODES = ("call", "stream")


class LookupMissing(LookupError):
    pass


@tool(description="Always fails")
def broken() -> str:
    raise LookupMissing("no such thing")


@tool(description="Answers")
def quick() -> str:
    return "quick"


async def ask(
    model: ScriptedChatModel, mode: str, events: list[LoopEvent], wrapper: UnitWrapper
) -> None:
    client = ChatClient.builder(model).unit_wrappers(wrapper).build()
    spec = client.prompt("Go.").tools(broken, quick).listener(events.append)
    if mode == "call":
        await spec.call().acontent()
    else:
        async for _ in spec.stream().acontent():
            pass


def script() -> list[object]:
    return [tool_call_response(tool_call("broken", {}, id="b1")), "Noted."]


def failures(events: list[LoopEvent]) -> list[tuple[str | None, ToolFailureKind | None]]:
    return [(e.error, e.failure) for e in events if isinstance(e, ToolFinished)]


@pytest.mark.parametrize("mode", MODES)
async def test_a_replayed_failure_names_what_the_tool_raised(mode: str) -> None:
    journal = Journal()
    live: list[LoopEvent] = []
    with durable_turn("t-1"):
        await ask(ScriptedChatModel(script()), mode, live, journal.wrapper())
    replayed: list[LoopEvent] = []
    recorded = journal.first(2)  # the model round and the tool call
    with durable_turn("t-1"):
        await ask(ScriptedChatModel(script()[1:]), mode, replayed, recorded.wrapper())
    assert failures(live) == failures(replayed) == [("LookupMissing", ToolFailureKind.RAISED)]


class EngineCancelled(BaseException):
    """What an engine raises at a unit of a turn it cancelled (DBOS raises one)."""


@pytest.mark.parametrize("mode", MODES)
async def test_an_engine_cancelling_a_turn_at_a_unit_ends_it_for_listeners(mode: str) -> None:
    async def cancelling(unit: Unit[Any], run: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
        if unit.kind is UnitKind.TOOL_CALL and unit.name == "broken":
            raise EngineCancelled(f"turn {unit.sequence} cancelled")
        return await run(unit)

    model = ScriptedChatModel(
        [tool_call_response(tool_call("quick", {}, id="q1"), tool_call("broken", {}, id="b1"))]
    )
    events: list[LoopEvent] = []
    engine = UnitWrapper.of_all("cancelling", UnitOrder.DURABLE, cancelling)
    with pytest.raises(EngineCancelled), durable_turn("t-2"):
        await ask(model, mode, events, engine)
    started = {e.call.id for e in events if isinstance(e, ToolStarted)}
    finished = {e.call.id: e for e in events if isinstance(e, ToolFinished)}
    assert "b1" in started
    assert set(finished) == {"q1", "b1"}
    assert finished["b1"].failure is ToolFailureKind.CANCELLED
    assert finished["q1"].failure in (None, ToolFailureKind.CANCELLED)  # ran or cancelled
    last = events[-1]
    assert isinstance(last, LoopEnded)
    assert last.reason is LoopExitReason.CANCELLED
    assert last.response is None
    assert last.rounds == 1
