"""Ordered Temporal turns. A turn submitted after another waits for it in an activity: a
worker SIGKILLed while the turn waits (its predecessor held in its model round) leaves
the wait to a restarted worker, which runs the turn once the predecessor has ended (real
worker processes, ``ostinato worker --engine temporal``). And ``ostinato serve``'s claim
of a conversation's next turn on this engine (in-process worker, ``turns``): ``reject``
refuses a busy conversation, ``enqueue`` submits the next number after the running turn
(which starts once that one has ended), ``steer`` sends the message to the latest
unfinished turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ostinato.durable import TurnRequest, TurnStatus
from ostinato.testing.durable_engine import FakeModelServer, Workers
from ostinato_serve._durable_claims import claim_turn, ordered
from ostinato_serve._problems import ApiError
from ostinato_serve._running import BusyPolicy
from ostinato_temporal import TemporalEngine
from tests.plugins.temporal.conftest import Turns, temporal_environment, use_environment
from tests.servers import TemporalServer


def test_a_turn_after_another_waits_across_a_worker_killed_in_the_wait(
    temporal_server: TemporalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeModelServer() as server:
        env = temporal_environment(server, tmp_path / "memory.sqlite3", temporal_server, "order")
        use_environment(monkeypatch, env)
        held = server.gate(("model", "w1", 1))
        second_round = server.gate(("model", "w2", 1))
        with (
            Workers(env, ["--engine", "temporal"], Path.cwd()) as workers,
            TemporalEngine() as engine,
        ):
            worker = workers.start()
            first = engine.submit(TurnRequest("w1 plain", remember=False), turn_id="w:1")
            second = engine.submit(
                TurnRequest("w2 plain", remember=False), turn_id="w:2", after="w:1"
            )
            assert held.arrived.wait(workers.patience)
            workers.kill(worker)  # in the first turn's round and the second's wait
            held.release.set()
            workers.start()
            assert second_round.arrived.wait(workers.patience)
            assert first.status is TurnStatus.SUCCEEDED  # it began once the first had ended
            second_round.release.set()
            assert second.result(timeout=workers.patience).text == "done w2"
    assert 1 <= server.started[("model", "w1", 1)] <= 2


def test_the_busy_policies_order_a_conversation_s_turns(turns: Turns) -> None:
    engine = turns.engine
    assert ordered(engine)
    held = turns.server.gate(("model", "b1", 1))
    later = turns.server.gate(("model", "b1", 2))  # the second turn's first round

    def claim(text: str, policy: BusyPolicy) -> tuple[str, bool]:
        request = TurnRequest(text, conversation_id="b")
        claimed = asyncio.run(claim_turn(engine, request, "b", policy))
        return claimed.turn_id, claimed.steered

    assert claim("b1 plain", BusyPolicy.REJECT) == ("turn:b:1", False)
    assert held.arrived.wait(30)
    with pytest.raises(ApiError) as busy:
        claim("b2 plain", BusyPolicy.REJECT)
    assert busy.value.status == 409
    assert claim("b2 plain", BusyPolicy.ENQUEUE) == ("turn:b:2", False)
    assert claim("and more", BusyPolicy.STEER) == ("turn:b:2", True)
    held.release.set()
    assert later.arrived.wait(30)
    assert engine.turn("turn:b:1").status is TurnStatus.SUCCEEDED
    later.release.set()
    assert engine.turn("turn:b:2").result(timeout=30).text == "done b1"  # the last answer
    # The steered message joined the enqueued turn at its first boundary.
    assert turns.remembered("b") == [
        "b1 plain", "done b1", "b2 plain", "done b1", "and more", "done b1"
    ]  # fmt: skip
