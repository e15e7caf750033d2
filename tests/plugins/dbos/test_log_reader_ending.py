"""The end of a cancelled turn's log, read while its worker's last rows land: a reader
that finds the turn cancelled reads the rows that landed meanwhile, or gets the ending a
cancelled turn owes its readers after the last row it saw — never a stream that stops
short of the turn's end (a race seen under load: the rows landed between the reader's
last look and the ending it built, which then found the log already ended)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ostinato import ChatClient
from ostinato.events import (
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    ToolFailureKind,
    ToolFinished,
    ToolStarted,
)
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import tool
from ostinato_dbos._reading import LogReader
from ostinato_dbos._turn_log import EventStore


@tool
def count(city: str) -> str:
    """Count."""
    return "1"


def _logged_turn() -> list[LoopEvent]:
    """A turn's events up to its tool call's start (as a worker logs them), then the
    cancelled call's end and the loop's, as its worker's listeners tell them last."""
    events: list[LoopEvent] = []
    model = ScriptedChatModel([tool_call_response(("count", {"city": "Oslo"})), "done"])
    ChatClient.create(model).prompt("go").tools(count).listener(events.append).call().content()
    started = next(i for i, e in enumerate(events) if e.kind == "tool_started")
    head = events[: started + 1]
    call = next(e for e in head if isinstance(e, ToolStarted)).call
    text = "Cancelled: the turn was cancelled before this call finished."
    usage = next(e for e in events if isinstance(e, LoopEnded)).usage
    tail: list[LoopEvent] = [
        ToolFinished(1, call, text, 0.0, "CancelledError", False, ToolFailureKind.CANCELLED),
        LoopEnded(LoopExitReason.CANCELLED, None, usage, 1),
    ]
    return [*head, *tail]


class Landing(EventStore):
    """The events table, with the worker's last rows landing as the reader, once it found
    the turn cancelled (``armed``), looks for the log's end (``bounds``) or builds the
    ending (``load``)."""

    def __init__(self, url: str, rows: list[tuple[str, int, str]], on: str) -> None:
        super().__init__(url)
        self._rows, self._on = rows, on
        self.armed = False

    def _land(self, name: str) -> None:
        if self.armed and name == self._on and self._rows:
            self.insert(self._rows)
            self._rows = []

    def bounds(self, turn_id: str) -> tuple[int, int]:
        self._land("bounds")
        return super().bounds(turn_id)

    def load(self, turn_id: str) -> list[LoopEvent]:
        self._land("load")
        return super().load(turn_id)


def _read(tmp_path: Path, on: str) -> list[LoopEvent]:
    events = _logged_turn()
    logged = [dataclasses.replace(e, turn_id="t", seq=n) for n, e in enumerate(events, 1)]
    rows = [("t", e.seq, json.dumps(e.to_dict())) for e in logged]
    landing = Landing(f"sqlite:///{tmp_path / 'events.sqlite3'}", rows[-2:], on)
    try:
        landing.insert(rows[:-2])  # the log as the reader first sees it: the call started
        reader = LogReader(landing, "t", 0, lambda: "PENDING", frozenset({"CANCELLED"}))
        read: list[LoopEvent] = []
        while batch := reader.poll():  # until the log as it stands is read
            read += batch
        assert len(read) == len(events) - 2
        reader._status = lambda: "CANCELLED"  # cancelled now: its last rows are landing
        landing.armed = True
        return read + [e for batch in iter(reader.poll, None) for e in batch]
    finally:
        landing.close()


def test_rows_that_land_as_the_reader_looks_for_the_end_are_read(tmp_path: Path) -> None:
    read = _read(tmp_path, on="bounds")
    assert [e.kind for e in read[-2:]] == ["tool_finished", "loop_ended"]
    assert [e.seq for e in read] == list(range(1, len(read) + 1))


def test_rows_that_land_as_the_ending_is_built_leave_the_ending_after_the_last_read(
    tmp_path: Path,
) -> None:
    read = _read(tmp_path, on="load")
    ended = read[-1]
    assert isinstance(ended, LoopEnded) and ended.reason is LoopExitReason.CANCELLED
    finished = read[-2]
    assert isinstance(finished, ToolFinished) and finished.failure is ToolFailureKind.CANCELLED
    assert [e.seq for e in read] == list(range(1, len(read) + 1))
