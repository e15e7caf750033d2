"""A durable turn honours the limits of its worker's configuration, as an in-process
turn does: the iteration cap and the usage limits end it the same way, and the
submitting side reads the same events (its ``LoopEnded`` says why)."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.config import AutoConfiguration
from ostinato.durable import TurnHandle, TurnRunner
from ostinato.events import LoopEnded, LoopEvent, LoopExitReason
from ostinato.testing.durable_engine import FakeModelServer
from ostinato.tools import ApprovalDecision, PendingToolCalls
from tests.plugins.dbos.workers import Workers, turn_request


async def _collect(handle: TurnHandle) -> list[LoopEvent]:
    async with asyncio.timeout(60):
        return [event async for event in handle.aevents()]


async def _no_decisions(pending: PendingToolCalls) -> dict[str, ApprovalDecision]:
    raise AssertionError(f"the turn asked for decisions: {pending}")


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ("OSTINATO_TOOLS__MAX_ITERATIONS", LoopExitReason.MAX_ITERATIONS),
        ("OSTINATO_TOOLS__MAX_MODEL_REQUESTS", LoopExitReason.BUDGET),
    ],
)
def test_the_worker_s_limits_end_a_durable_turn_as_they_end_an_in_process_one(
    workers: Workers,
    model_server: FakeModelServer,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
    reason: LoopExitReason,
) -> None:
    workers.env[setting] = "1"  # one model round: the tool it asks for never runs
    workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(turn_request("l1", "tool"))
        answer = handle.result(timeout=60)
        events = asyncio.run(_collect(handle))
    assert [e.kind for e in events] == [
        "round_started",
        "tool_call_delta",  # the round streams
        "round_finished",
        "tool_call_requested",
        "text_delta",  # the answer the loop built itself, as one piece
        "loop_ended",
    ]
    assert [e.seq for e in events] == list(range(1, 7))
    ended = events[-1]
    assert isinstance(ended, LoopEnded)
    assert ended.reason is reason and ended.rounds == 1
    assert ended.usage.total_tokens == 15
    assert answer.text != "done l1"
    assert model_server.started[("model", "l1", 1)] == 1
    assert model_server.started[("model", "l1", 2)] == 0
    assert model_server.started[("count", "l1", 0)] == 0
    # The same turn in process, configured as the worker is: the same events and answer.
    for name, value in workers.env.items():
        monkeypatch.setenv(name, value)
    seen: list[LoopEvent] = []
    runner = TurnRunner(AutoConfiguration(), listeners=[seen.append])
    request = turn_request("l2", "tool")
    local = asyncio.run(runner.run(request, _no_decisions))
    assert [e.kind for e in seen] == [e.kind for e in events]
    assert isinstance(seen[-1], LoopEnded) and seen[-1].reason is reason
    assert local.text == answer.text
    assert model_server.started[("model", "l2", 2)] == model_server.started[("count", "l2", 0)] == 0
