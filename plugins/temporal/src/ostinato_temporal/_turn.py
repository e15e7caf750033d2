"""What the turn workflow shares with its unit wrapper: the turn's tool names and unit
options, and its loop events collected until they are shipped.

A turn's events are told inside the workflow (the tool loop and core's tool wrappers run
there); they reach readers through the turn's history, each exactly once: the events told
since the previous unit ride in the input of the next unit's activity (an activity is
scheduled once, however often it runs), and the rest in a memo change the workflow makes
before it waits for decisions and before it ends (see :mod:`ostinato_temporal._events`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ostinato.events import LoopEvent

__all__ = ["TurnJob", "current_job", "relay_event", "running_turn", "take_events"]


@dataclass(slots=True)
class TurnJob:
    """The running turn, as its unit wrapper needs it.

    Attributes:
        turn_id: the workflow id.
        tools: the turn's tool names (its request's), for the activities' clients.
        options: the unit options the turn was submitted with (timeouts, heartbeat).
        events: the loop events told since they were last shipped, as JSON.
    """

    turn_id: str
    tools: tuple[str, ...]
    options: Mapping[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)


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


def relay_event(event: LoopEvent) -> None:
    """The listener every worker's turn has: keep ``event`` for the next shipment."""
    job = _JOB.get()
    if job is not None:
        job.events.append(event.to_dict())


def take_events() -> list[dict[str, Any]]:
    """The events kept since the last shipment, forgotten here."""
    job = _JOB.get()
    if job is None or not job.events:
        return []
    taken = list(job.events)
    job.events.clear()
    return taken
