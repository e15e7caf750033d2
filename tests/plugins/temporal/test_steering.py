"""Steering a running Temporal turn (a signal, taken at the next round boundary) and its
follow-up (the messages that came after the last boundary), on a development server with
a worker in this process (``turns``: its listener lets a test hold the workflow task
that tells the loop's end).
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from ostinato.durable import TurnRequest, follow_up_id, follow_up_request
from ostinato.errors import DurableTurnError
from ostinato.testing.durable_engine import TOOLS
from ostinato_temporal import TemporalEngine, TemporalSettings
from tests.plugins.temporal.conftest import Holding, Turns
from tests.servers import TemporalServer


def _history(engine: TemporalEngine, turn_id: str) -> list[Any]:
    async def read() -> list[Any]:
        handle = (await engine.client()).get_workflow_handle(turn_id)
        return [event async for event in handle.fetch_history_events()]

    return engine._sync(read)


def test_a_message_steered_in_a_tool_call_joins_the_next_round_and_memory(
    turns: Turns,
) -> None:
    tool = turns.server.gate(("count", "s1", 0))
    handle = turns.engine.submit(
        TurnRequest("s1 tool", conversation_id="s1", tools=(f"{TOOLS}:count",))
    )
    assert tool.arrived.wait(30)
    handle.steer("and the other one")  # taken at the boundary after the tool's result
    tool.release.set()
    assert handle.result(timeout=30).text == "done s1"
    assert turns.server.user_texts[("model", "s1", 2)] == ["and the other one"]
    assert turns.remembered("s1") == ["s1 tool", "and the other one", "done s1"]
    with pytest.raises(DurableTurnError, match="has ended") as ended:
        handle.steer("too late")
    assert ended.value.status == "succeeded"
    with pytest.raises(DurableTurnError) as unknown:  # nothing was left for a follow-up
        _ = turns.engine.turn(follow_up_id(handle.id)).status
    assert unknown.value.status == "unknown"
    with pytest.raises(DurableTurnError) as nobody:
        turns.engine.turn("no-such-turn").steer("hello")
    assert nobody.value.status == "unknown"
    with pytest.raises(ValueError, match="non-blank"):
        handle.steer("  ")


def test_a_message_steered_after_the_last_round_runs_in_the_follow_up(
    turns: Turns, holding: Holding
) -> None:
    """The message arrives once the loop has ended (the worker holds the workflow task
    telling it; the answer is not stored yet): it runs in the turn's follow-up, stored
    after the turn's answer."""
    handle = turns.engine.submit(TurnRequest("s2 plain", conversation_id="s2"), turn_id="turn:s2:1")
    assert holding.ending.wait(30)
    handle.steer("one more thing")  # no round boundary is left
    holding.sent.set()
    assert handle.result(timeout=30).text == "done s2"
    follow_up = turns.engine.turn(follow_up_id(handle.id))
    assert follow_up.id == "turn:s2:2"
    assert follow_up.result(timeout=30).text == "done s2"
    assert turns.server.user_texts[("model", "s2", 2)] == ["one more thing"]
    assert turns.remembered("s2") == ["s2 plain", "done s2", "one more thing", "done s2"]


def test_a_message_steered_while_the_turn_completes_is_not_dropped(
    turns: Turns, holding: Holding
) -> None:
    """The message arrives while the worker holds the workflow task that ends the turn
    (its answer computed, nothing left to await): the service refuses the completion,
    and the workflow runs again from its history with the message delivered beside the
    last round's result, before its round boundary: the turn takes it and goes on."""
    handle = turns.engine.submit(TurnRequest("s3 plain", conversation_id="s3", remember=False))
    assert holding.ending.wait(30)
    handle.steer("and this")
    holding.sent.set()
    handle.result(timeout=30)
    assert turns.server.user_texts[("model", "s3", 2)] == ["and this"]
    from temporalio.api.enums.v1 import EventType, WorkflowTaskFailedCause

    refused = [
        e.workflow_task_failed_event_attributes.cause
        for e in _history(turns.engine, handle.id)
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]
    assert refused == [WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND]
    with pytest.raises(DurableTurnError):  # the turn took it: no follow-up
        _ = turns.engine.turn(follow_up_id(handle.id)).status


def test_late_messages_pass_an_ended_turn_of_the_series_and_join_a_running_one(
    turns: Turns, holding: Holding
) -> None:
    """The follow-up's id taken by an ended turn: the next id of the series; taken by a
    running turn (the conversation's next message, submitted after this one): the late
    messages are steered into it."""
    engine = turns.engine
    assert engine.submit(TurnRequest("f0 plain", conversation_id="f0"), turn_id="f:2").result(
        timeout=30
    )
    holding.arm("f:1")
    first = engine.submit(TurnRequest("f1 plain", conversation_id="f1"), turn_id="f:1")
    assert holding.ending.wait(30)
    first.steer("late f")
    holding.sent.set()
    assert first.result(timeout=30).text == "done f1"  # it ends once it passed them on
    assert engine.turn("f:3").result(timeout=30).text == "done f1"
    assert turns.server.user_texts[("model", "f1", 2)] == ["late f"]

    holding.arm("g:1")
    ahead = engine.submit(TurnRequest("g1 plain", conversation_id="g1"), turn_id="g:1")
    after = engine.submit(
        TurnRequest("g2 plain", conversation_id="g2"), turn_id="g:2", after="g:1", exclusive=True
    )
    assert holding.ending.wait(30)
    ahead.steer("late g")
    holding.sent.set()
    assert ahead.result(timeout=30).text == "done g1"
    after.result(timeout=30)
    assert turns.server.user_texts[("model", "g2", 2)] == ["late g"]  # its first boundary
    with pytest.raises(DurableTurnError):
        _ = engine.turn("g:3").status


def test_the_follow_up_activity_run_again_finds_its_own_work(
    temporal_server: TemporalServer,
) -> None:
    """A retry of the activity (its worker lost) finds the follow-up it submitted; a
    later batch is steered into it under the batch's id, which the turn takes once
    however often it is sent. No worker polls the queue: the follow-up only waits."""
    from temporalio.api.enums.v1 import EventType
    from temporalio.testing import ActivityEnvironment

    from ostinato_temporal._ordering import submit_follow_up
    from ostinato_temporal._steering import TemporalSteering

    queue = f"idle-{uuid.uuid4().hex[:8]}"
    engine = TemporalEngine(TemporalSettings(address=temporal_server.address, task_queue=queue))
    client = engine._sync(engine.client)
    environment = ActivityEnvironment(client)
    environment.info = dataclasses.replace(environment.info, task_queue=queue)
    turn_id = f"r-{uuid.uuid4().hex[:8]}:1"
    request = follow_up_request(TurnRequest("r1 plain"), ["late"], turn_id=turn_id)
    payload = {
        "turn": turn_id,
        "key": f"{turn_id}/late/1",
        "request": request.to_dict(),
        "texts": ["late"],
        "options": engine._options(),
    }
    later = {**payload, "key": f"{turn_id}/late/2", "texts": ["later"]}

    def run(arguments: dict[str, Any]) -> Any:
        return engine._sync(lambda: environment.run(submit_follow_up, arguments))

    follow_up = follow_up_id(turn_id)
    assert [run(payload), run(payload), run(later), run(later)] == [follow_up] * 4
    signals = [
        e.workflow_execution_signaled_event_attributes
        for e in _history(engine, follow_up)
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    ]
    assert len(signals) == 2  # the later batch, sent twice
    steering = TemporalSteering()
    for signal in signals:
        (message,) = engine._sync(lambda s=signal: client.data_converter.decode(s.input.payloads))
        steering.signalled(message)
    assert [m.text for m in steering.drain()] == ["later"]
    engine.turn(follow_up).cancel()
    engine.close()


def test_a_follow_up_that_cannot_be_submitted_leaves_the_turn_its_answer(
    turns: Turns, holding: Holding
) -> None:
    """Every id the follow-up may take is held by a turn that ended: its activity gives
    up after its attempts, the failure is logged, and the turn keeps its answer."""
    engine = turns.engine
    for n in range(1, 21):
        engine.submit(TurnRequest("h0 plain", conversation_id="h0"), turn_id=f"h:{n}").result(
            timeout=30
        )
    holding.arm("h")
    handle = engine.submit(TurnRequest("h1 plain", conversation_id="h1"), turn_id="h")
    assert holding.ending.wait(30)
    handle.steer("late h")
    holding.sent.set()
    assert handle.result(timeout=60).text == "done h1"  # not stuck retrying for ever
    with pytest.raises(DurableTurnError):
        _ = engine.turn("h:21").status
