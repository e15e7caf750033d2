"""A turn cancelled through DBOS, whose workflow can write no more, ends for its log's
readers as it ended for its worker's listeners."""

from __future__ import annotations

import asyncio
import dataclasses

from ostinato import ChatClient, tool
from ostinato.events import (
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    RoundStarted,
    ToolCallRequested,
    ToolFailureKind,
    ToolFinished,
    ToolStarted,
)
from ostinato.model import Usage
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_dbos._ending import CancelledEnding


@tool(description="Answers at once")
def quick() -> str:
    return "quick"


@tool(description="Waits until cancelled")
async def block() -> str:
    await asyncio.Event().wait()
    return "never"


async def cancelled_turn() -> list[LoopEvent]:
    """The events a listener hears of a turn cancelled while ``block`` runs."""
    events: list[LoopEvent] = []
    running = asyncio.Event()

    def listen(event: LoopEvent) -> None:
        events.append(event)
        if isinstance(event, ToolStarted) and event.call.id == "b1":
            running.set()

    model = ScriptedChatModel(
        [
            tool_call_response(tool_call("quick", {}, id="q1"), usage=(3, 4, 7)),
            tool_call_response(tool_call("block", {}, id="b1"), usage=(5, 6, 11)),
        ]
    )
    spec = ChatClient.create(model).prompt("Go.").tools(quick, block).listener(listen)
    task = asyncio.create_task(spec.call().acontent())
    await running.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return events


def _timeless(events: list[LoopEvent]) -> list[LoopEvent]:
    return [
        dataclasses.replace(e, duration=0.0) if isinstance(e, ToolFinished) else e for e in events
    ]


async def test_a_cancelled_turns_readers_get_the_ending_its_listeners_heard() -> None:
    heard = await cancelled_turn()
    ending = heard[-2:]
    assert [type(e) for e in ending] == [ToolFinished, LoopEnded]
    assert isinstance(ending[0], ToolFinished)
    assert ending[0].failure is ToolFailureKind.CANCELLED
    # What reached the log: everything before the cancellation.
    batches = CancelledEnding()
    for event in heard[:-2]:
        batches.follow(event)

    assert _timeless(batches.cancelled_ending()) == _timeless(ending)
    assert batches.cancelled_ending() == []  # once


def test_a_turn_that_ended_or_never_started_owes_nothing() -> None:
    batches = CancelledEnding()
    assert batches.cancelled_ending() == []  # no round: the turn failed before its loop
    waiting = [
        RoundStarted(1, ()),
        LoopEnded(LoopExitReason.APPROVAL_REQUIRED, None, Usage(), 1),
    ]
    for event in waiting:
        batches.follow(event)
    assert batches.cancelled_ending() == []  # cancelled while it waited: its loop had ended


def test_a_turn_cancelled_after_its_approval_owes_the_approved_calls_end() -> None:
    # Approved, the loop resumes with the decided call (no new round yet): cancelled
    # then, its readers get the call's cancelled result and the loop's end.
    pay = tool_call("pay", {}, id="p1")
    batches = CancelledEnding()
    for event in (
        RoundStarted(1, ()),
        ToolCallRequested(1, pay),
        LoopEnded(LoopExitReason.APPROVAL_REQUIRED, None, Usage(), 1),
        ToolStarted(1, pay),
    ):
        batches.follow(event)
    finished, ended = batches.cancelled_ending()
    assert isinstance(finished, ToolFinished) and finished.call == pay
    assert finished.failure is ToolFailureKind.CANCELLED
    assert isinstance(ended, LoopEnded) and ended.reason is LoopExitReason.CANCELLED
