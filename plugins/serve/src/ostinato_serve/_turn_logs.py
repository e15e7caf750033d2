"""A served turn's log: the turn runs as a task of the server writing its events to an
in-memory log, and each connection is a reader of that log, by position.

``POST /api/turns`` starts the turn when its response starts and reads the log from its
start; ``GET /api/turns/<turn_id>/events`` reads it again after the position the
``Last-Event-ID`` header (a browser's ``EventSource`` sends it when it reconnects) or the
``after`` query parameter names. Every loop event goes out with ``id: <seq>``. A turn no
connection reads for ``reattach_seconds`` is cancelled (a client that left for good
cancels its turn); a turn's log is kept ``keep_seconds`` after it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ostinato.events import LoopEvent, MemoryTurnLog, MemoryTurnLogs

__all__ = ["ServedTurn", "ServedTurns"]


@dataclass(slots=True)
class ServedTurn:
    """One served turn: its log, its task, what its readers send besides the events.

    Attributes:
        log: the turn's events.
        conversation_id: its conversation.
        after_event: serve's own messages to send after the event at a position
            (``pending``, with the id of the turn waiting for approval).
        error: the ``event: error`` message of a turn that failed.
    """

    log: MemoryTurnLog
    conversation_id: str
    after_event: dict[int, bytes] = field(default_factory=dict)
    error: bytes | None = None
    task: asyncio.Task[None] | None = None
    readers: int = 0
    orphaned: asyncio.TimerHandle | None = None


class ServedTurns:
    """The served turns by id (one event loop: the server's)."""

    def __init__(self, reattach_seconds: float, keep_seconds: float) -> None:
        self.reattach_seconds = reattach_seconds
        self.logs = MemoryTurnLogs(keep_seconds=keep_seconds)
        self._turns: dict[str, ServedTurn] = {}

    def open(self, turn_id: str, conversation_id: str) -> ServedTurn:
        """A new turn's record and log (the records of forgotten logs go)."""
        for gone in [t for t in self._turns if t not in self.logs]:
            del self._turns[gone]
        turn = ServedTurn(self.logs.open(turn_id), conversation_id)
        self._turns[turn_id] = turn
        return turn

    def get(self, turn_id: str) -> ServedTurn:
        """The turn ``turn_id``.

        Raises:
            TurnLogError: no such turn is kept (``unknown_turn``).
        """
        self.logs.get(turn_id)  # raises for a turn unknown or forgotten
        return self._turns[turn_id]

    def start(
        self, turn: ServedTurn, run: Callable[[ServedTurn], Any], on_end: Callable[[], None]
    ) -> None:
        """Run ``run(turn)`` as the turn's task (once); ``on_end`` when it ended."""
        if turn.task is not None:
            return

        async def body() -> None:
            try:
                await run(turn)
            finally:
                turn.log.end()
                on_end()

        turn.task = asyncio.get_running_loop().create_task(body())

    async def read(
        self, turn: ServedTurn, after: int, frame: Callable[[LoopEvent], bytes]
    ) -> AsyncIterator[bytes]:
        """The turn's messages after position ``after``, live until it ends."""
        self._attach(turn)
        try:
            async for event in turn.log.aread(after):
                yield frame(event)
                extra = turn.after_event.get(event.seq)
                if extra is not None:
                    yield extra
            if turn.error is not None:
                yield turn.error
        finally:
            self._detach(turn)

    def _attach(self, turn: ServedTurn) -> None:
        turn.readers += 1
        if turn.orphaned is not None:
            turn.orphaned.cancel()
            turn.orphaned = None

    def _detach(self, turn: ServedTurn) -> None:
        turn.readers -= 1
        task = turn.task
        if turn.readers == 0 and task is not None and not task.done():
            loop = asyncio.get_running_loop()
            turn.orphaned = loop.call_later(self.reattach_seconds, _cancel, task)


def _cancel(task: asyncio.Task[None]) -> None:
    with contextlib.suppress(RuntimeError):
        task.cancel()
