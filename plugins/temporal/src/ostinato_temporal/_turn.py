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

from typing import TYPE_CHECKING

from ostinato.durable import ReplayedTurnLog
from ostinato_temporal._job import TurnJob, current_job, running_turn, take_events

if TYPE_CHECKING:
    from ostinato.events import LoopEvent

__all__ = ["TemporalTurnLog", "TurnJob", "current_job", "running_turn", "take_events"]


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
