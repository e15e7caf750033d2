"""The turn a workflow runs, as its unit wrapper needs it: kept in a context variable.

Light on purpose: the unit wrapper, in the stack of every auto-configured client where
the plugin is installed, asks :func:`current_job` around every unit of every turn, and
importing this must not import the durable machinery (:mod:`ostinato_temporal._turn`
holds the turn's log).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ostinato.tools import ApprovalDecision, PendingToolCalls

__all__ = ["TurnJob", "current_job", "running_turn", "take_events"]


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


def take_events() -> list[dict[str, Any]]:
    """The events kept since the last shipment, forgotten here."""
    job = _JOB.get()
    if job is None or not job.events:
        return []
    taken = list(job.events)
    job.events.clear()
    return taken
