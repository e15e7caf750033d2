"""Real worker processes killed in the middle of a turn: the turn completes elsewhere,
each completed unit ran exactly once, the one in flight at most twice, and memory holds
the turn once. SQLite system database (one machine)."""

from __future__ import annotations

import pytest

from ostinato.cli._approve_command import run_approve
from ostinato.durable import TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError
from ostinato.events import withdrawn
from ostinato.testing.durable_engine import FakeModelServer
from ostinato_memory import SQLiteChatMemoryRepository
from tests.plugins.dbos.workers import Workers, submit_followed

#: What a reader sees of a turn with one tool call, whether or not a worker died in it.
TOOL_TURN = [
    "round_started 1",
    "round_finished 1",
    "tool_call_requested 1",
    "tool_started 1",
    "tool_finished 1",
    "round_started 2",
    "round_finished 2",
    "loop_ended",
]
#: What a reader sees of a turn with one call needing approval, until it waits for it.
UNTIL_APPROVAL = [
    "round_started 1",
    "round_finished 1",
    "tool_call_requested 1",
    "approval_required 1",
    "loop_ended",
]


def remembered(workers: Workers, conversation: str) -> list[str | None]:
    repository = SQLiteChatMemoryRepository(workers.memory_path)
    return [m.text for m in repository.find_by_conversation_id_sync(conversation)]


def test_killed_in_a_model_round_the_turn_completes_on_the_restarted_worker(
    workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("model", "t1", 2))
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t1", "tool")
        assert gate.arrived.wait(workers.patience)
        workers.kill(worker)  # in the second model round, after the tool ran
        gate.release.set()
        workers.start("w1")  # the same worker again: it recovers its own turns
        assert handle.result(timeout=workers.patience).text == "done t1"
        assert follower.kinds() == TOOL_TURN  # each event once, across the crash
        # Read again: the same events at the same positions.
        again = list(handle.events(timeout=60))
        assert [e.seq for e in again] == list(range(1, len(again) + 1))
        assert [e.seq for e in again] == [e.seq for e in follower.events]
        pieces = ("text_delta", "tool_call_delta")
        kinds = [e.kind for e in withdrawn(again) if e.kind not in pieces]
        assert kinds == [k.split()[0] for k in TOOL_TURN]
    started = model_server.started
    assert started[("model", "t1", 1)] == 1  # completed before the crash: not repeated
    assert started[("count", "t1", 0)] == 1
    assert started[("model", "t1", 2)] == 2  # in flight at the crash: at most twice
    assert remembered(workers, "t1") == ["t1 tool", "done t1"]


def test_killed_in_a_tool_call_the_turn_completes_on_another_live_worker(
    workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("count", "t2", 0))
    first, second = workers.start("w1"), workers.start("w2")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t2", "tool")
        assert gate.arrived.wait(workers.patience)
        killed = workers.running(engine, handle.id)
        live = second if killed is first else first
        workers.kill(killed)
        gate.release.set()  # the live worker adopts the dead one's turn
        assert handle.result(timeout=workers.patience).text == "done t2"
        assert follower.kinds() == TOOL_TURN
    # A live worker presumed dead (starved longer than the dead-after timeout) fences
    # itself and exits: then the counts below cannot hold, and this says why.
    assert live.poll() is None, "the live worker was presumed dead and fenced itself"
    started = model_server.started
    assert started[("model", "t2", 1)] == 1
    assert started[("count", "t2", 0)] == 2  # in flight at the crash: ran again...
    assert len(set(model_server.keys)) == 1  # ...with the same idempotency key
    assert started[("model", "t2", 2)] == 1
    assert remembered(workers, "t2") == ["t2 tool", "done t2"]


def test_a_turn_waiting_for_approval_outlives_its_workers_and_resumes_on_ostinato_approve(
    workers: Workers,
    model_server: FakeModelServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t3", "approval")
        pending = handle.wait_for_pending(workers.patience)
        assert pending is not None and [c.name for c in pending.calls] == ["pay"]
        assert handle.status is TurnStatus.WAITING_FOR_APPROVAL
        workers.kill(worker)  # while it waits
        workers.start("w2")  # a new worker adopts the turn: it waits again
        monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", workers.database_url)
        assert run_approve(["--list"]) == 0  # in process: `ostinato approve` runs below
        assert handle.id in capsys.readouterr().out
        approved = workers.command("approve", handle.id[:8])  # a unique start of the id
        assert approved.returncode == 0, approved
        assert approved.stdout.strip() == f"approved 1 call(s) of {handle.id}"
        assert handle.result(timeout=workers.patience).text == "done t3"
        assert follower.kinds() == [
            *UNTIL_APPROVAL,
            "tool_started 1",
            "tool_finished 1",
            "round_started 2",
            "round_finished 2",
            "loop_ended",
        ]
    started = model_server.started
    assert started[("model", "t3", 1)] == 1
    assert started[("pay", "t3", 0)] == 1
    assert started[("model", "t3", 2)] == 1
    assert remembered(workers, "t3") == ["t3 approval", "done t3"]


def test_sigterm_hands_a_waiting_turn_back_and_a_decision_from_the_api_resumes_it(
    workers: Workers, model_server: FakeModelServer
) -> None:
    workers.env["OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS"] = "600"  # not waited: nothing runs
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t4", "approval")
        pending = handle.wait_for_pending(workers.patience)
        assert pending is not None
        assert "handed back 1 turn(s)" in workers.terminate(worker)
        assert worker.returncode == 0
        assert handle.status is TurnStatus.WAITING_FOR_APPROVAL  # queued, still waiting
        handle.decide({pending.calls[0].id: False})
        workers.start("w2")
        assert handle.result(timeout=workers.patience).text == "done t4"
        assert follower.kinds() == [
            *UNTIL_APPROVAL,  # no tool runs: the denied call is answered in the resumed round
            "tool_finished 1",  # its denial
            "round_started 2",
            "round_finished 2",
            "loop_ended",
        ]
        unknown = engine.submit(TurnRequest("t5 plain", conversation_id="t5", tools=("no_such:x",)))
        with pytest.raises(DurableTurnError, match=r"ToolResolutionError: .*'no_such:x'"):
            unknown.result(timeout=workers.patience)
        assert unknown.status is TurnStatus.FAILED
        assert list(unknown.events(timeout=60)) == []  # failed before its loop: ends empty
    assert model_server.started[("pay", "t4", 0)] == 0  # denied: never ran
    assert model_server.started[("model", "t4", 1)] == 1
    assert remembered(workers, "t4")[0] == "t4 approval"
