"""The end a turn cancelled through DBOS owes its readers.

A workflow cancelled through DBOS (``DBOS.cancel_workflow``) runs no more of its code, so
the last events its worker's listeners heard (a cancelled ``ToolFinished`` for each call
left unfinished, then ``LoopEnded(cancelled)``) never reach its log. A reader that reaches
the end of such a turn's log gets them from :class:`CancelledEnding`, built from what the
log holds, with the positions that follow the log's last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ostinato.events import LoopEvent

__all__ = ["CancelledEnding"]


class CancelledEnding:
    """Follows a turn's logged events (:meth:`follow`, each in order, from the first)
    and gives, for a turn cancelled through DBOS, the ending its log lacks
    (:meth:`cancelled_ending`)."""

    __slots__ = ("_batch", "_ended", "_rounds", "_usage")

    def __init__(self) -> None:
        from ostinato.events import ToolBatch
        from ostinato.model import Usage

        self._batch = ToolBatch()
        self._ended = False
        self._rounds = 0
        self._usage = Usage()

    def follow(self, event: LoopEvent) -> None:
        """Take ``event`` (the next of the log) into account."""
        from ostinato.events import LoopEnded, RoundFinished, RoundStarted

        self._batch.record(event)
        if isinstance(event, RoundStarted):
            self._rounds = event.round
        elif isinstance(event, RoundFinished):
            self._usage = self._usage + event.usage
        # Any event after a stop for approval is the resumed loop going on (its decided
        # calls start before any new round does).
        self._ended = isinstance(event, LoopEnded)

    def cancelled_ending(self) -> list[LoopEvent]:
        """What a turn cancelled through DBOS (its workflow cancelled) still owes its
        readers once its stream ended: a cancelled ``ToolFinished`` for each call read
        as asked for or started and not finished, then ``LoopEnded(cancelled)``, as the
        worker's own listeners heard them. (A cancelled workflow can write no more, so
        its last events never reach the log.) Nothing when the loop had ended, or
        before any round."""
        from ostinato.events import LoopEnded, LoopExitReason, ToolFailureKind, ToolFinished

        if self._ended or self._rounds == 0:
            return []
        self._ended = True
        text = "Cancelled: the turn was cancelled before this call finished."
        ending: list[LoopEvent] = [
            ToolFinished(
                self._rounds, call, text, 0.0, "CancelledError", False, ToolFailureKind.CANCELLED
            )
            for call, _ in self._batch.unfinished()
        ]
        ending.append(LoopEnded(LoopExitReason.CANCELLED, None, self._usage, self._rounds))
        return ending
