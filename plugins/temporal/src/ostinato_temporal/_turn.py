"""What the turn workflow shares with its unit wrapper: the turn's tool names and unit
options, and its log (:class:`TemporalTurnLog`), whose events wait there until shipped.

A turn's events are told inside the workflow (the tool loop and core's tool wrappers run
there; a model round is one activity, its streamed text one piece when the round ends);
they reach readers through the turn's history, each exactly once: the events told since
the previous unit ride in the input of the next unit's activity (an activity is scheduled
once, however often it runs), and the rest in a memo change the workflow makes before it
waits for decisions and before it ends (see :mod:`ostinato_temporal._events`). Every
event told in a workflow task is shipped by a command of that same task, so a reader
sees it once the task completes: within milliseconds, not at the end of the next unit.

Positions: the workflow's code runs again, identically, on every replay, and tells the
same events in the same order; its log numbers them from 1 each time, so each event has
the same position on every replay, and a replayed activity schedule or memo change is not
sent again. A worker killed in a model round leaves no piece of it behind (the round's
pieces are told when its activity's result is in the history), so a Temporal turn's log
never holds a :class:`~ostinato.events.RoundAbandoned`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ostinato.durable import ReplayedTurnLog

if TYPE_CHECKING:
    from ostinato.events import LoopEvent
    from ostinato.tools import ApprovalDecision, PendingToolCalls

__all__ = ["TemporalTurnLog", "TurnJob", "current_job", "running_turn", "take_events"]


@dataclass(slots=True)
class TurnJob:
    """The running turn, as its unit wrapper needs it.

    Attributes:
        turn_id: the workflow id.
        tools: the turn's tool names (its request's), for the activities' clients.
        options: the unit options the turn was submitted with (timeouts, heartbeat).
        events: the loop events told since they were last shipped, as JSON.
        wait_for_decisions: the workflow's wait for decisions on pending calls (a call
            left in doubt asks through it, see :mod:`ostinato_temporal._guard`).
    """

    turn_id: str
    tools: tuple[str, ...]
    options: Mapping[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    wait_for_decisions: (
        Callable[[PendingToolCalls], Awaitable[Mapping[str, ApprovalDecision]]] | None
    ) = None


_JOB: ContextVar[TurnJob | None] = ContextVar("ostinato_temporal_turn", default=None)


def current_job() -> TurnJob | None:
    """The turn the current workflow code runs, or ``None``."""
    return _JOB.get()


@contextlib.contextmanager
def running_turn(job: TurnJob) -> Iterator[TurnJob]:
    """Make ``job`` the current turn for the code inside (the workflow enters it)."""
    token = _JOB.set(job)
    try:
        yield job
    finally:
        _JOB.reset(token)


class TemporalTurnLog(ReplayedTurnLog):
    """A turn's log in its workflow: each event placed (numbered from 1 on every run of
    the workflow's code, see the module's docstring) waits in ``job.events`` for the next
    shipment. Readers read the history (:mod:`ostinato_temporal._events`), not this."""

    __slots__ = ("_job",)

    def __init__(self, job: TurnJob) -> None:
        super().__init__(job.turn_id, ())
        self._job = job

    def write(self, event: LoopEvent) -> None:
        """Keep ``event`` for the next shipment."""
        self._job.events.append(event.to_dict())

    def end(self) -> None:
        """Nothing to wait for: the workflow ships what is left as it ends."""


def take_events() -> list[dict[str, Any]]:
    """The events kept since the last shipment, forgotten here."""
    job = _JOB.get()
    if job is None or not job.events:
        return []
    taken = list(job.events)
    job.events.clear()
    return taken
