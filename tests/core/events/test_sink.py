"""``EventSink``: listeners in order, sync and async, and a raising listener reported
once per run without breaking anything."""

from __future__ import annotations

import asyncio
import logging

import pytest

from ostinato.events import (
    EventSink,
    TextDelta,
    ToolFinished,
    ToolStarted,
    current_event_sink,
    reset_event_sink,
    set_event_sink,
)
from ostinato.messages import ToolCall


def test_sync_and_async_listeners_get_every_event_in_order():
    seen: list[tuple[str, str]] = []

    def plain(event):
        seen.append(("sync", event.text))

    async def coroutine(event):
        await asyncio.sleep(0)
        seen.append(("async", event.text))

    sink = EventSink([plain, coroutine])

    async def run():
        await sink.emit(TextDelta(1, "a"))
        await sink.emit(TextDelta(1, "b"))

    asyncio.run(run())
    assert seen == [("sync", "a"), ("async", "a"), ("sync", "b"), ("async", "b")]


def test_a_raising_listener_is_reported_once_and_the_others_still_hear(caplog):
    heard: list[str] = []

    def broken(event):
        raise RuntimeError("listener bug")

    sink = EventSink([broken, lambda e: heard.append(e.text)])

    async def run():
        for text in "abc":
            await sink.emit(TextDelta(1, text))

    with caplog.at_level(logging.ERROR, logger="ostinato.events"):
        asyncio.run(run())
    assert heard == ["a", "b", "c"]
    reports = [r for r in caplog.records if r.name == "ostinato.events"]
    assert len(reports) == 1
    message = reports[0].getMessage()
    assert "raised RuntimeError on a 'text_delta' event" in message
    assert "the turn goes on" in message
    assert reports[0].exc_info is not None


def test_tool_events_carry_the_current_round():
    seen = []
    sink = EventSink([seen.append])
    sink.round = 3
    call = ToolCall("c", "t", "{}")

    async def run():
        await sink.tool_started(call)
        await sink.tool_finished(call, "ok", 0.5)

    asyncio.run(run())
    assert seen == [ToolStarted(3, call), ToolFinished(3, call, "ok", 0.5)]


def test_a_listener_must_be_callable():
    with pytest.raises(TypeError, match="a listener must be a callable taking one event"):
        EventSink(["not callable"])  # type: ignore[list-item]


def test_the_current_sink_is_set_and_reset():
    sink = EventSink([])
    assert current_event_sink() is None
    token = set_event_sink(sink)
    assert current_event_sink() is sink
    reset_event_sink(token)
    assert current_event_sink() is None


async def test_the_sink_follows_the_calls_of_the_round_from_what_it_emits():
    from ostinato.events import RoundStarted, ToolCallRequested, ToolFailureKind

    sink = EventSink([])
    first, second, third = (ToolCall(f"c{n}", "weather", "{}") for n in range(1, 4))
    await sink.emit(RoundStarted(1, ()))
    for call in (first, second, third):
        await sink.emit(ToolCallRequested(1, call))
    await sink.tool_started(first)
    await sink.tool_started(second)
    await sink.tool_finished(second, "sunny", 0.1)
    assert sink.batch.finished == {"c2": "sunny"}
    unfinished = sink.batch.unfinished()
    assert [call.id for call, _ in unfinished] == ["c1", "c3"]  # in the order asked for
    assert unfinished[0][1] >= 0.0  # started: it has run a while
    assert unfinished[1][1] == 0.0  # never started
    await sink.tool_finished(first, "x", 0.2, "CancelledError", False, ToolFailureKind.CANCELLED)
    assert [call.id for call, _ in sink.batch.unfinished()] == ["c3"]
    await sink.emit(RoundStarted(2, ()))  # a new round: a new batch
    assert sink.batch.finished == {}
    assert sink.batch.unfinished() == []
