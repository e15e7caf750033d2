"""The turns a server runs in its own process: each a task writing its loop events to an
in-memory turn log (:class:`~ostinato.events.MemoryTurnLog`), read by any number of
responses from any position, so a turn outlives the connection that started it.

A :class:`ServedTurn` holds its id, conversation, :class:`~ostinato.runtime.CancelScope`
(an explicit stop, an ``interrupt``, or a reader gone for good under ``cancel``),
:class:`~ostinato.runtime.Steering` (a ``steer``), its log, and serve's own messages sent
after an event (``pending``) or after the last (``error``). :class:`ServedTurns` finds
turns by id and the latest turn of each conversation (the busy-conversation policies ask
it); an ended turn's log stays readable ``keep_seconds`` (at most ``keep_turns`` logs).

When the last reader of a running turn goes away, the disconnect policy decides:
``detach`` (the default) lets it run on; ``cancel`` cancels it unless a reader comes
back within ``reattach_seconds`` (a page reloading, a network blip). This module runs no
turn and answers no request.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ostinato.events import LoopEvent, MemoryTurnLog, MemoryTurnLogs
from ostinato.runtime import CancelScope, Steering

__all__ = ["BusyPolicy", "Disconnect", "ServedTurn", "ServedTurns"]


class BusyPolicy(StrEnum):
    """What a message for a conversation whose turn still runs does."""

    REJECT = "reject"
    """``409 conversation_busy``, naming the running turn."""
    ENQUEUE = "enqueue"
    """A new turn, run once the conversation's earlier turns have ended."""
    INTERRUPT = "interrupt"
    """The running turn is cancelled (its conversation left valid), then the new one runs."""
    STEER = "steer"
    """The message joins the running turn at its next round boundary (a new turn after it
    when it has none left)."""


class Disconnect(StrEnum):
    """What a running turn does when its last reader goes away."""

    DETACH = "detach"
    """It goes on; a reader may reattach by position."""
    CANCEL = "cancel"
    """It is cancelled, unless a reader reattaches within the reattach grace."""


@dataclass(eq=False)
class ServedTurn:
    """One turn the server runs.

    Attributes:
        log: its loop events (positions from 1; its id is the turn's).
        conversation_id: its conversation.
        question: the user text that started it.
        scope: cancels it.
        steering: adds messages to it while it runs.
        after_event: serve's own messages to send after the event at a position
            (``pending``, with the id of the calls waiting for approval).
        trailer: the message sent after its last event (``error`` of a turn that
            failed, ``cancelled`` of one stopped before it started), if any.
        outcome: how it ended, once it has (``answered``, ``cancelled``, ``failed``...).
        answer: its answer's text, once it has one.
        pending_id: the approval it stopped for, if any.
    """

    log: MemoryTurnLog
    conversation_id: str
    question: str
    scope: CancelScope = field(default_factory=CancelScope)
    steering: Steering = field(default_factory=Steering)
    after_event: dict[int, bytes] = field(default_factory=dict)
    trailer: bytes | None = None
    outcome: str | None = None
    answer: str | None = None
    pending_id: str | None = None
    task: asyncio.Task[Any] | None = None
    readers: int = 0
    orphaned: asyncio.TimerHandle | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> str:
        """Its id (``turn-<hex>``)."""
        return str(self.log.turn_id)

    @property
    def done(self) -> bool:
        """Whether it has ended."""
        return self.log.ended

    def end(self) -> None:
        """It ended: its log's readers stop after the last event."""
        self.log.end()
        self.finished.set()

    async def wait_done(self) -> None:
        """Return once it has ended."""
        await self.finished.wait()

    def summary(self) -> dict[str, Any]:
        """Its JSON form for ``GET /api/turns/<id>`` and non-streamed answers."""
        return {
            "turn_id": self.id,
            "conversation_id": self.conversation_id,
            "done": self.done,
            "outcome": self.outcome,
            "answer": self.answer,
            "pending_id": self.pending_id,
            "position": self.log.last,
        }


class ServedTurns:
    """The server's turns by id, and the latest of each conversation (one event loop:
    the server's).

    Args:
        reattach_seconds: the grace a turn under ``cancel`` gets without readers.
        keep_seconds: how long an ended turn stays readable.
        keep_turns: how many turn logs are kept at most.
        disconnect: what a running turn does when its last reader goes away.
    """

    def __init__(
        self,
        reattach_seconds: float,
        keep_seconds: float,
        keep_turns: int = 1000,
        disconnect: Disconnect = Disconnect.DETACH,
    ) -> None:
        self.reattach_seconds = reattach_seconds
        self.disconnect = disconnect
        self.logs = MemoryTurnLogs(keep_seconds=keep_seconds, max_turns=keep_turns)
        self._turns: dict[str, ServedTurn] = {}
        self._latest: dict[str, ServedTurn] = {}

    def open(self, conversation_id: str, question: str) -> tuple[ServedTurn, ServedTurn | None]:
        """A new turn (its conversation's latest), and the turn it follows if that one
        has not ended (an enqueued turn waits for it). Forgotten turns' records go."""
        for gone in [t for t in self._turns if t not in self.logs]:
            old = self._turns.pop(gone)
            if self._latest.get(old.conversation_id) is old:
                del self._latest[old.conversation_id]
        log = self.logs.open(f"turn-{uuid.uuid4().hex}")
        turn = ServedTurn(log, conversation_id, question)
        before = self._latest.get(conversation_id)
        self._latest[conversation_id] = turn
        self._turns[turn.id] = turn
        return turn, (before if before is not None and not before.done else None)

    def get(self, turn_id: str) -> ServedTurn:
        """The turn ``turn_id``.

        Raises:
            TurnLogError: no such turn is kept (``unknown_turn``).
        """
        self.logs.get(turn_id)  # raises for a turn unknown or forgotten
        return self._turns[turn_id]

    def busy(self, conversation_id: str) -> ServedTurn | None:
        """The conversation's latest turn, while it has not ended."""
        turn = self._latest.get(conversation_id)
        return turn if turn is not None and not turn.done else None

    def unfinished(self, conversation_id: str) -> list[ServedTurn]:
        """The conversation's turns that have not ended, oldest first."""
        return [
            t for t in self._turns.values() if t.conversation_id == conversation_id and not t.done
        ]

    async def read(
        self, turn: ServedTurn, after: int, frame: Callable[[LoopEvent], bytes]
    ) -> AsyncIterator[bytes]:
        """The turn's messages after position ``after``, live until it ends."""
        self.attach(turn)
        try:
            async for event in turn.log.aread(after):
                yield frame(event)
                extra = turn.after_event.get(event.seq)
                if extra is not None:
                    yield extra
            if turn.trailer is not None:
                yield turn.trailer
        finally:
            self.detach(turn)

    def attach(self, turn: ServedTurn) -> None:
        """A reader of ``turn`` came (a turn waiting to be cancelled is not, now)."""
        turn.readers += 1
        if turn.orphaned is not None:
            turn.orphaned.cancel()
            turn.orphaned = None

    def detach(self, turn: ServedTurn) -> None:
        """A reader of ``turn`` went (see the disconnect policy)."""
        turn.readers -= 1
        if turn.readers == 0 and not turn.done and self.disconnect is Disconnect.CANCEL:
            loop = asyncio.get_running_loop()
            turn.orphaned = loop.call_later(
                self.reattach_seconds, turn.scope.cancel, "the client went away"
            )
