"""What every turn's events must look like, whatever the tool advisor.

:func:`check_turn` asserts the order and consistency rules the events contract states:
the first event starts round 1; rounds count up by one; each round is ``RoundStarted``,
its deltas, ``RoundFinished``, then (for a tool round) one ``ToolCallRequested`` per call
a ``ToolStarted`` / ``ToolFinished`` pair per call that runs (a lone ``ToolFinished``, with
an error class and duration 0, per call answered without running); ``LoopEnded`` comes once,
last (after one text delta on the stream path when the loop built the answer itself),
with the rounds counted and the usage of every round summed. Assertion messages
name the way the turn ran and the event at fault.
"""

from __future__ import annotations

from ostinato.events import (
    ApprovalRequired,
    LoopEnded,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolCallRequested,
    ToolFailureKind,
    ToolFinished,
    ToolStarted,
)
from ostinato.model import Usage
from ostinato.testing.tool_advisor._harness import Run

__all__ = ["check_turn"]


def check_turn(run: Run) -> None:
    """Assert that ``run``'s events follow the contract (see the module docstring)."""
    where = f"({run.path}/{run.face})"
    events = run.events
    assert events, f"a turn emitted no events {where}"
    first = events[0]
    assert isinstance(first, RoundStarted), f"the first event must be RoundStarted {where}"
    assert first.round == 1, f"the first round is 1, got {first!r} {where}"
    ended = [e for e in events if isinstance(e, LoopEnded)]
    assert len(ended) == 1, f"LoopEnded must come once; got {len(ended)} {where}"
    assert events[-1] is ended[0], f"LoopEnded must come last {where}"
    current = 0
    finished = False
    requested: list[str] = []
    started: set[str] = set()
    usage = Usage()
    for index, event in enumerate(events[:-1]):
        if isinstance(event, RoundStarted):
            assert event.round == current + 1, f"round {event.round} after {current} {where}"
            assert not started, f"tools still running when round {event.round} starts {where}"
            current, finished, requested = event.round, False, []
            continue
        assert getattr(event, "round", current) == current, (
            f"{event!r} carries round {getattr(event, 'round', None)} in round {current} {where}"
        )
        if isinstance(event, TextDelta | ToolCallDelta):
            assert run.path == "stream", f"deltas are stream-only, got {event!r} {where}"
            # An answer the loop builds itself streams as one text delta, just before the end.
            built = isinstance(event, TextDelta) and index == len(events) - 2
            assert not finished or built, f"a delta after RoundFinished: {event!r} {where}"
        elif isinstance(event, RoundFinished):
            assert not finished, f"two RoundFinished in round {current} {where}"
            finished = True
            usage = usage + event.usage
        elif isinstance(event, ToolCallRequested):
            assert finished, f"a tool call requested before RoundFinished {where}"
            requested.append(event.call.id)
        elif isinstance(event, ToolStarted):
            assert event.call.id in requested, f"{event!r} was not requested {where}"
            started.add(event.call.id)
        elif isinstance(event, ToolFinished):
            assert event.duration >= 0, f"a negative duration: {event!r} {where}"
            if event.call.id in started:
                started.discard(event.call.id)
            else:  # answered without running: an error or a denial, at once
                assert event.call.id in requested, f"{event!r} was not requested {where}"
                denied = event.failure is ToolFailureKind.DENIED
                assert event.error is not None or denied, (
                    f"{event!r} ran without ToolStarted {where}"
                )
                assert event.duration == 0, f"{event!r} did not run but took time {where}"
        elif isinstance(event, ApprovalRequired):
            assert finished, f"approval required before RoundFinished {where}"
    assert not started, f"tools started but never finished: {sorted(started)} {where}"
    last = ended[0]
    assert last.rounds == current, f"LoopEnded.rounds={last.rounds}, rounds seen {current} {where}"
    assert last.usage == usage, f"LoopEnded.usage={last.usage!r}, rounds sum {usage!r} {where}"
