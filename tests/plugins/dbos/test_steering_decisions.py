"""Durable turns steered from another process (the message recorded: a worker killed
after taking it replays the same conversation), and decided once: a second decision,
from the same or another engine, is refused with a clear error. Real worker processes
on SQLite."""

from __future__ import annotations

import pytest

from ostinato.durable import TurnStatus, follow_up_request
from ostinato.errors import DurableTurnError
from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.test_crash_recovery import remembered
from tests.plugins.dbos.workers import Workers, turn_request


def test_a_steered_message_joins_the_durable_turn_and_survives_a_crash(
    workers: Workers, model_server: FakeModelServer
) -> None:
    tool = model_server.gate(("count", "s1", 0))
    second = model_server.gate(("model", "s1", 2))
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(turn_request("s1", "tool"))
        assert tool.arrived.wait(workers.patience)
        handle.steer("and the other one")  # while the tool runs: taken after its result
        tool.release.set()
        assert second.arrived.wait(workers.patience)
        workers.kill(worker)  # the message was taken: the replay must take it again
        second.release.set()
        workers.start("w1")
        assert handle.result(timeout=workers.patience).text == "done s1"
        with pytest.raises(DurableTurnError, match="has ended"):
            handle.steer("too late")
    assert remembered(workers, "s1") == ["s1 tool", "and the other one", "done s1"]
    assert model_server.started[("count", "s1", 0)] == 1


def test_a_second_decision_is_refused_from_any_process(workers: Workers) -> None:
    workers.start("w1")
    with workers.engine() as engine, workers.engine() as other:
        handle = engine.submit(turn_request("d1", "approval"))
        pending = handle.wait_for_pending(workers.patience)
        assert pending is not None
        call = pending.calls[0].id
        handle.decide({call: True})
        with pytest.raises(DurableTurnError, match="decided already") as refused:
            other.turn(handle.id).decide({call: False})
        assert refused.value.status == "already_decided"
        assert handle.result(timeout=workers.patience).text == "done d1"
        assert handle.status is TurnStatus.SUCCEEDED


def test_a_follow_up_is_submitted_once_and_joins_a_turn_that_holds_its_id(
    workers: Workers,
) -> None:
    from ostinato_dbos._steering import submit_follow_up

    with workers.engine() as engine:  # no worker: the turns stay queued
        engine.submit(turn_request("f1", "tool"), turn_id="turn:f1:1")
        late = follow_up_request(turn_request("f1", "tool"), ["f1 late"], turn_id="turn:f1:1")
        assert submit_follow_up(engine, late) == "turn:f1:2"
        assert submit_follow_up(engine, late) == "turn:f1:2"  # run again: its own turn
        assert sorted(engine.turn_ids("turn:f1:")) == ["turn:f1:1", "turn:f1:2"]
        # Another turn holds the next id (an enqueued message): the late one joins it.
        engine.submit(turn_request("f2", "tool"), turn_id="turn:f2:1")
        engine.submit(turn_request("f2", "tool"), turn_id="turn:f2:2", after="turn:f2:1")
        late = follow_up_request(turn_request("f2", "tool"), ["f2 late"], turn_id="turn:f2:1")
        assert submit_follow_up(engine, late) == "turn:f2:2"
        assert submit_follow_up(engine, late) == "turn:f2:2"  # the same message, once
        assert sorted(engine.turn_ids("turn:f2:")) == ["turn:f2:1", "turn:f2:2"]
        # An id held by a turn that has ended passes to the next one of the series.
        engine.submit(turn_request("f3", "tool"), turn_id="f3")
        engine.submit(turn_request("f3", "tool"), turn_id="f3:1").cancel()
        late = follow_up_request(turn_request("f3", "tool"), ["f3 late"], turn_id="f3")
        assert submit_follow_up(engine, late) == "f3:2"
    workers.start("w1")
    with workers.engine() as engine:  # the enqueued turn took the late message once
        engine.turn("turn:f2:1").result(timeout=workers.patience)
        assert engine.turn("turn:f2:2").result(timeout=workers.patience).text.endswith("done f2")
    assert remembered(workers, "f2") == [
        *("f2 tool", "done f2", "f2 tool"),
        *("done f2", "f2 late", "done f2"),  # taken after its first answer: one more round
    ]


def test_a_follow_up_that_cannot_be_submitted_leaves_the_turn_its_answer(
    workers: Workers, model_server: FakeModelServer
) -> None:
    import json

    from ostinato_dbos._steering import ENDED_EVENT

    workers.env["OSTINATO_TOOLS__MAX_ITERATIONS"] = "2"  # the answer's boundary takes none
    answer = model_server.gate(("model", "g1", 2))
    with workers.engine() as engine:
        for n in range(1, 21):  # every id the follow-up may take is held by an ended turn
            engine.submit(turn_request("g1", "tool"), turn_id=f"g1:{n}").cancel()
        workers.start("w1")
        handle = engine.submit(turn_request("g1", "tool"), turn_id="g1")
        assert answer.arrived.wait(workers.patience)
        handle.steer("g1 late")  # read when the turn closes; its follow-up fails
        answer.release.set()
        assert handle.result(timeout=workers.patience).text == "done g1"  # kept
        ended = json.loads(engine.client.get_event("g1", ENDED_EVENT, timeout_seconds=5))
        assert ended == {"read": [], "follow_up": None}  # a sender still waiting: unread
        assert "g1:21" not in engine.turn_ids("g1:")
