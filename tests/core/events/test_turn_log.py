"""A turn's place for each event (``turn_id``, ``seq``) and the in-process turn log:
read after a position, follow live until the turn ends, bounded, clear errors."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ostinato import ChatClient
from ostinato.errors import TurnLogError
from ostinato.events import (
    LoopEvent,
    MemoryTurnLog,
    MemoryTurnLogs,
    RoundAbandoned,
    TextDelta,
    withdrawn,
)
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.tools import tool


@tool(description="Adds")
def add(a: int, b: int) -> int:
    return a + b


def _spec(*listeners):
    model = ScriptedChatModel([tool_call_response(tool_call("add", {"a": 1, "b": 2})), "Three"])
    spec = ChatClient.create(model).prompt("1+2?").tools(add)
    for listener in listeners:
        spec = spec.listener(listener)
    return spec


def test_every_event_of_a_turn_has_a_contiguous_position_without_a_log():
    events = list(_spec().stream().events())
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert {e.turn_id for e in events} == {None}
    heard: list[LoopEvent] = []
    _spec(heard.append).call().content()
    assert [e.seq for e in heard] == list(range(1, len(heard) + 1))


def test_a_log_numbers_the_turn_and_a_reader_in_another_thread_follows_it_live():
    log = MemoryTurnLog("turn-1")
    seen: list[LoopEvent] = []
    reader = threading.Thread(target=lambda: seen.extend(log.read(timeout=10)))
    reader.start()
    assert "".join(_spec(log).stream().content()) == "Three"
    log.end()
    reader.join(10)
    assert [e.seq for e in seen] == list(range(1, log.last + 1))
    assert {e.turn_id for e in seen} == {"turn-1"}
    assert seen[-1].kind == "loop_ended"
    # Reattach by position: the rest, once.
    assert [e.seq for e in log.read(after=3)] == list(range(4, log.last + 1))
    assert list(log.read(after=log.last)) == []


async def test_async_readers_follow_live_and_reattach():
    log = MemoryTurnLog("turn-2")

    async def read(after: int) -> list[int]:
        return [e.seq async for e in log.aread(after=after)]

    first = asyncio.create_task(read(0))
    await asyncio.sleep(0)
    chunks = [c async for c in _spec(log).stream().acontent()]
    assert "".join(chunks) == "Three"
    log.end()
    seqs = await asyncio.wait_for(first, 5)
    assert seqs == list(range(1, log.last + 1))
    assert await read(2) == seqs[2:]


def test_bad_positions_are_clear_errors_never_a_hang():
    log = MemoryTurnLog("t", max_events=3)
    for n in range(1, 6):
        placed = log.place(TextDelta(1, str(n)))
        for event in placed:
            log(event)
    with pytest.raises(TurnLogError) as past:
        next(log.read(after=9))
    assert past.value.reason == "past_end" and past.value.position == 9
    assert "last event is at 5" in str(past.value)
    with pytest.raises(TurnLogError) as old:
        next(log.read(after=1))
    assert old.value.reason == "expired" and "from position 3" in str(old.value)
    reading = log.read(after=2, timeout=0.01)
    assert [e.text for e in (next(reading), next(reading), next(reading))] == ["3", "4", "5"]  # type: ignore[attr-defined]
    with pytest.raises(TimeoutError):
        next(reading)  # the turn is open: it waits for more, bounded
    log.end()
    assert [e.seq for e in log.read(after=2)] == [3, 4, 5]
    with pytest.raises(ValueError, match="after must be a position"):
        next(log.read(after=-1))


def test_logs_by_id_unknown_and_forgotten_after_their_retention():
    logs = MemoryTurnLogs(keep_seconds=0.0, max_turns=10)
    log = logs.open("a")
    assert logs.get("a") is log
    with pytest.raises(TurnLogError) as unknown:
        logs.get("zzz")
    assert unknown.value.reason == "unknown_turn" and "'zzz'" in str(unknown.value)
    with pytest.raises(ValueError, match="exists already"):
        logs.open("a")
    log.end()
    with pytest.raises(TurnLogError):
        logs.get("a")  # ended longer ago than keep_seconds


def test_withdrawn_drops_an_abandoned_attempt_and_keeps_the_rest():
    events = [
        TextDelta(1, "Hel", seq=1),
        TextDelta(1, "lo", seq=2),
        RoundAbandoned(1, 1, seq=3),
        TextDelta(1, "Hi", seq=4),
        RoundAbandoned(1, 4, seq=5),
        TextDelta(1, "Hey", seq=6),
        TextDelta(1, " you", seq=7),
    ]
    kept = withdrawn(events)
    assert "".join(e.text for e in kept if isinstance(e, TextDelta)) == "Hey you"
    assert [e.seq for e in kept] == [6, 7]
