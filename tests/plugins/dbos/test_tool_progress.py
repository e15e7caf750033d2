"""A tool's progress in a DBOS turn: the reports reach the turn's log in the engine's
store, read from another process; a worker killed after the call was recorded leaves
them there once (the replay answers the call from its record and reports nothing
again)."""

from __future__ import annotations

from ostinato.events import ToolProgress
from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.workers import Workers, submit_followed

PROGRESS_TURN = [
    "round_started 1",
    "round_finished 1",
    "tool_call_requested 1",
    "tool_started 1",
    "tool_progress 1",
    "tool_progress 1",
    "tool_finished 1",
    "round_started 2",
    "round_finished 2",
    "loop_ended",
]


def test_progress_reaches_the_log_once_across_a_worker_death(
    workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("model", "g1", 2))
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "g1", "progress")
        assert gate.arrived.wait(workers.patience)
        workers.kill(worker)  # in the second model round, after the tool was recorded
        gate.release.set()
        workers.start("w1")
        assert handle.result(timeout=workers.patience).text == "done g1"
        assert follower.kinds() == PROGRESS_TURN
        events = list(handle.events(timeout=60))
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        told = [e for e in events if isinstance(e, ToolProgress)]
        assert [(e.text, dict(e.data or {}), e.fraction) for e in told] == [
            ("step 1 of 2 for g1", {"step": 1}, 0.5),
            ("step 2 of 2 for g1", {"step": 2}, 1.0),
        ]
        assert {e.call.name for e in told} == {"steps"} and {e.turn_id for e in told} == {handle.id}
    assert model_server.started[("count", "g1", 0)] == 1
