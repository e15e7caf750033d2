"""A running tool's progress reports (``ostinato.tools.report_progress`` /
``areport_progress``) are ``tool_progress`` events of the calling turn: between the call's
``ToolStarted`` and ``ToolFinished``, in the order reported, from sync and async tools,
on call and stream, in the turn log; nothing when nobody listens; in a durable turn they
reach its log, and a replay of a recorded call tells none again."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ostinato import ChatClient
from ostinato.durable import ReplayedTurnLog, durable_turn
from ostinato.events import (
    LoopEvent,
    MemoryTurnLog,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    event_from_dict,
)
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.tools import areport_progress, report_progress, tool
from tests.core.durable.journal import Journal

MODES = ("call", "stream")


@tool(description="Fetches pages (sync)")
def fetch(pages: int) -> str:
    for n in range(1, pages + 1):
        report_progress(f"page {n} of {pages}", data={"page": n}, fraction=n / pages)
    return f"{pages} pages"


@tool(description="Fetches pages (async)")
async def afetch(pages: int) -> str:
    for n in range(1, pages + 1):
        await areport_progress(f"page {n}", fraction=n / pages)
        await asyncio.sleep(0)
    report_progress("done", data={"pages": pages, "names": ["a", "b"]})  # sync form, async tool
    return f"{pages} pages"


def _model(name: str, pages: int = 3) -> ScriptedChatModel:
    return ScriptedChatModel(
        [tool_call_response(tool_call(name, {"pages": pages}, id="c1")), "Fetched."]
    )


def _run(name: str, mode: str, *listeners: object) -> list[LoopEvent]:
    heard: list[LoopEvent] = []
    spec = ChatClient.create(_model(name)).prompt("Fetch.").tools(fetch, afetch)
    for listener in (*listeners, heard.append):
        spec = spec.listener(listener)  # type: ignore[arg-type]
    if mode == "call":
        assert spec.call().content() == "Fetched."
    else:
        assert "".join(spec.stream().content()) == "Fetched."
    return heard


def _between(events: list[LoopEvent]) -> list[LoopEvent]:
    kinds = [e.kind for e in events]
    start, end = kinds.index("tool_started"), kinds.index("tool_finished")
    assert all(k != "tool_progress" for k in kinds[:start] + kinds[end:])
    return events[start + 1 : end]


@pytest.mark.parametrize("mode", MODES)
def test_a_sync_tool_reports_in_order_between_its_start_and_finish(mode: str) -> None:
    events = _run("fetch", mode)
    progress = _between(events)
    assert all(isinstance(e, ToolProgress) for e in progress)
    assert [(p.text, dict(p.data or {}), p.fraction) for p in progress] == [  # type: ignore[attr-defined]
        ("page 1 of 3", {"page": 1}, 1 / 3),
        ("page 2 of 3", {"page": 2}, 2 / 3),
        ("page 3 of 3", {"page": 3}, 1.0),
    ]
    assert {p.call.id for p in progress} == {"c1"}  # type: ignore[attr-defined]
    assert {p.round for p in progress} == {1}  # type: ignore[attr-defined]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


@pytest.mark.parametrize("mode", MODES)
def test_an_async_tool_reports_with_both_forms_and_the_turn_log_keeps_them(mode: str) -> None:
    log = MemoryTurnLog("turn-p")
    events = _run("afetch", mode, log)
    log.end()
    progress = _between(events)
    assert [p.text for p in progress] == ["page 1", "page 2", "page 3", "done"]  # type: ignore[attr-defined]
    stored = [e for e in log.read() if e.kind == "tool_progress"]
    assert stored == progress
    assert {e.turn_id for e in stored} == {"turn-p"}
    # The JSON form round-trips, data included.
    last = stored[-1].to_dict()
    assert last["kind"] == "tool_progress" and last["data"] == {"pages": 3, "names": ["a", "b"]}
    assert event_from_dict(last) == stored[-1]


def test_the_stream_of_events_carries_progress() -> None:
    spec = ChatClient.create(_model("fetch", 2)).prompt("Fetch.").tools(fetch)
    kinds = [e.kind for e in spec.stream().events()]
    assert kinds.count("tool_progress") == 2
    assert kinds.index("tool_started") < kinds.index("tool_progress") < kinds.index("tool_finished")


def test_without_a_listener_or_outside_a_turn_a_report_does_nothing() -> None:
    assert ChatClient.create(_model("fetch")).prompt("Fetch.").tools(fetch).call().content() == (
        "Fetched."
    )
    report_progress("nobody hears this", fraction=0.5)
    asyncio.run(areport_progress("nor this"))
    assert fetch(2) == "2 pages"  # called directly, outside any turn


def test_bad_reports_are_clear_errors_inside_a_turn() -> None:
    @tool(description="Reports badly")
    def bad() -> str:
        report_progress("half", fraction=1.5)
        return "unreachable"

    model = ScriptedChatModel([tool_call_response(tool_call("bad", {}, id="b")), "Ok."])
    heard: list[LoopEvent] = []
    ChatClient.create(model).prompt("Go.").tools(bad).listener(heard.append).call().content()
    finished = next(e for e in heard if isinstance(e, ToolFinished))
    assert "between 0 and 1" in finished.result and finished.error == "ValueError"


class ListLog(ReplayedTurnLog):
    """A durable turn's log whose store is a list."""

    def __init__(self, stored: list[LoopEvent]) -> None:
        super().__init__("turn-d", stored)
        self.written: list[LoopEvent] = []

    def write(self, event: LoopEvent) -> None:
        self.written.append(event)


async def _durable(journal: Journal, log: ListLog, mode: str) -> list[LoopEvent]:
    """One run of the turn's code; the model answers only the rounds not recorded."""
    heard: list[LoopEvent] = []
    rounds = [e for e in journal.entries.values() if e[0].startswith("model_")]
    model = ScriptedChatModel(_model("fetch").script[len(rounds) :])
    client = ChatClient.builder(model).unit_wrappers(journal.wrapper()).build()
    spec = client.prompt("Fetch.").tools(fetch).listener(log).listener(heard.append)
    with durable_turn("turn-d"):
        if mode == "call":
            await spec.call().acontent()
        else:
            async for _ in spec.stream().acontent():
                pass
    return heard


@pytest.mark.parametrize("mode", MODES)
async def test_a_durable_turn_logs_progress_and_a_replayed_call_tells_none_again(mode: str) -> None:
    journal = Journal()
    first = ListLog([])
    heard = await _durable(journal, first, mode)
    assert [e.kind for e in first.written].count("tool_progress") == 3
    assert first.written == heard

    # The worker died after the tool call was recorded and its finish reached the log:
    # the replay answers the call from the record, so its progress is not told again,
    # and the stored reports keep their positions.
    finished = next(i for i, e in enumerate(first.written) if isinstance(e, ToolFinished))
    stored = first.written[: finished + 1]
    second = ListLog(stored)
    replayed = await _durable(journal, second, mode)
    assert not [e for e in replayed if e.kind == "tool_progress"]
    assert all(e.kind != "tool_progress" for e in second.written)
    assert [e.seq for e in stored + second.written] == list(
        range(1, len(stored + second.written) + 1)
    )


async def test_a_durable_call_run_again_reports_in_the_stored_positions_first() -> None:
    journal = Journal()
    first = ListLog([])
    await _durable(journal, first, "call")
    # Died while the tool ran, after two reports reached the log (the call is not recorded).
    second_report = [i for i, e in enumerate(first.written) if e.kind == "tool_progress"][1]
    stored = first.written[: second_report + 1]
    again = ListLog(stored)
    heard = await _durable(journal.first(1), again, "call")
    told = [e for e in heard if isinstance(e, ToolProgress)]
    assert [e.text for e in told] == ["page 1 of 3", "page 2 of 3", "page 3 of 3"]
    assert [e.seq for e in told[:2]] == [e.seq for e in stored if e.kind == "tool_progress"]
    whole = stored + again.written
    assert [e.seq for e in whole] == list(range(1, len(whole) + 1))
    assert [e.kind for e in whole].count("tool_progress") == 3
    assert [e for e in whole if isinstance(e, ToolStarted)] != []


async def test_a_report_after_the_call_was_abandoned_is_dropped() -> None:
    go, reported = threading.Event(), threading.Event()

    @tool(description="Too slow", timeout=0.05)
    def slow() -> str:
        go.wait(30)
        report_progress("too late")  # its call timed out: the turn has moved on
        reported.set()
        return "late"

    model = ScriptedChatModel([tool_call_response(tool_call("slow", {}, id="s")), "Gave up."])
    heard: list[LoopEvent] = []
    spec = ChatClient.create(model).prompt("Go.").tools(slow).listener(heard.append)
    assert await spec.call().acontent() == "Gave up."
    go.set()
    assert await asyncio.to_thread(reported.wait, 30)
    for _ in range(3):
        await asyncio.sleep(0)  # the loop runs what the tool thread handed it
    assert [e for e in heard if e.kind == "tool_progress"] == []
    assert [e.kind for e in heard][-1] == "loop_ended"
