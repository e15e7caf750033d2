"""A durable turn cancelled through DBOS while a tool runs: its readers' events end the
way an in-process cancelled turn's do — a cancelled ``ToolFinished`` for the call whose
end never reached them, then ``LoopEnded(cancelled)`` — and the turn is cancelled."""

from __future__ import annotations

from ostinato.durable import TurnStatus
from ostinato.events import LoopEnded, LoopExitReason, ToolFailureKind, ToolFinished
from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.workers import Workers, submit_followed


def test_a_turn_cancelled_in_a_tool_call_ends_for_its_readers(
    workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("count", "t-cancel", 0))
    workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t-cancel", "tool")
        assert gate.arrived.wait(workers.patience)
        engine.client.cancel_workflow(handle.id)
        gate.release.set()  # the tool ends; the turn's next unit finds it cancelled
        assert follower.kinds() == [
            "round_started 1",
            "round_finished 1",
            "tool_call_requested 1",
            "tool_started 1",
            "tool_finished 1",
            "loop_ended",
        ]
        finished, ended = follower.events[-2:]
        assert isinstance(finished, ToolFinished)
        assert finished.failure is ToolFailureKind.CANCELLED
        assert isinstance(ended, LoopEnded)
        assert ended.reason is LoopExitReason.CANCELLED
        assert handle.status is TurnStatus.CANCELLED
