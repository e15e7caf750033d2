"""The turns a server runs in its own process: each a task writing its SSE messages into a
log that any number of responses read from any position, so a turn outlives the
connection that started it.

A :class:`ServedTurn` holds its id, conversation, :class:`~ostinato.runtime.CancelScope`
(an explicit stop, an ``interrupt``, or a ``cancel`` on disconnect),
:class:`~ostinato.runtime.Steering` (a ``steer``) and :class:`MessageLog`.
:class:`ServedTurns` finds turns by id and the latest turn of each conversation (the
busy-conversation policies ask it), keeping the latest ``keep`` finished ones for
readers that reattach. This module runs no turn and answers no request.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ostinato.runtime import CancelScope, Steering
from ostinato_serve._problems import ApiError

__all__ = [
    "BusyPolicy",
    "Disconnect",
    "MessageLog",
    "ServedTurn",
    "ServedTurns",
]


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
    """What a turn does when the client reading it goes away."""

    DETACH = "detach"
    """It goes on; a reader may reattach by position."""
    CANCEL = "cancel"
    """It is cancelled."""


class MessageLog:
    """The SSE messages of one turn, numbered from 1; read from any position, following
    live until the turn ends. One event loop only (the server's)."""

    __slots__ = ("_changed", "done", "messages")

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.done = False
        self._changed = asyncio.Event()

    def append(self, message: bytes) -> None:
        """Add ``message`` (one SSE message, without its ``id:``)."""
        self.messages.append(message)
        self._wake()

    def close(self) -> None:
        """The turn ended: readers stop after the last message."""
        self.done = True
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_done(self) -> None:
        """Return once the turn has ended."""
        while not self.done:
            await self._changed.wait()

    def check(self, after: int) -> None:
        """Refuse a position this log cannot read from.

        Raises:
            ApiError: ``416 position_out_of_range`` when ``after`` is negative or past the
                last message written.
        """
        if after < 0 or after > len(self.messages):
            raise ApiError(
                416,
                "position_out_of_range",
                f"position {after} is outside this turn's {len(self.messages)} message(s); "
                "expected 0 (from the start) up to the last id read",
            )

    async def follow(self, after: int = 0) -> AsyncIterator[bytes]:
        """The messages after position ``after`` (see :meth:`check`), each with its
        ``id:``, following live until the turn ends."""
        position = after
        while True:
            while position < len(self.messages):
                position += 1
                yield f"id: {position}\n".encode() + self.messages[position - 1]
            if self.done:
                return
            await self._changed.wait()


@dataclass(eq=False)
class ServedTurn:
    """One turn the server runs.

    Attributes:
        id: its id (``turn-<hex>``).
        conversation_id: its conversation.
        question: the user text that started it.
        scope: cancels it.
        steering: adds messages to it while it runs.
        log: its SSE messages.
        outcome: how it ended, once it has (``answered``, ``cancelled``, ``pending``...).
        answer: its answer's text, once it has one.
        pending_id: the approval it stopped for, if any.
    """

    conversation_id: str
    question: str
    id: str = field(default_factory=lambda: f"turn-{uuid.uuid4().hex}")
    scope: CancelScope = field(default_factory=CancelScope)
    steering: Steering = field(default_factory=Steering)
    log: MessageLog = field(default_factory=MessageLog)
    outcome: str | None = None
    answer: str | None = None
    pending_id: str | None = None
    task: asyncio.Task[Any] | None = None

    @property
    def done(self) -> bool:
        """Whether it has ended."""
        return self.log.done

    def summary(self) -> dict[str, Any]:
        """Its JSON form for ``GET /api/turns/<id>`` and non-streamed answers."""
        return {
            "turn_id": self.id,
            "conversation_id": self.conversation_id,
            "done": self.done,
            "outcome": self.outcome,
            "answer": self.answer,
            "pending_id": self.pending_id,
            "position": len(self.log.messages),
        }


class ServedTurns:
    """The server's turns by id, and the latest of each conversation; the latest ``keep``
    finished turns stay readable."""

    __slots__ = ("_keep", "_latest", "_turns")

    def __init__(self, keep: int = 1000) -> None:
        self._keep = keep
        self._turns: OrderedDict[str, ServedTurn] = OrderedDict()
        self._latest: dict[str, ServedTurn] = {}

    def add(self, turn: ServedTurn) -> ServedTurn | None:
        """Keep ``turn`` as its conversation's latest; the turn it follows, if that one
        has not ended (an enqueued turn waits for it)."""
        before = self._latest.get(turn.conversation_id)
        self._latest[turn.conversation_id] = turn
        self._turns[turn.id] = turn
        finished = [t for t in self._turns.values() if t.done]
        for old in finished[: max(0, len(finished) - self._keep)]:
            del self._turns[old.id]
            if self._latest.get(old.conversation_id) is old:
                del self._latest[old.conversation_id]
        return before if before is not None and not before.done else None

    def get(self, turn_id: str) -> ServedTurn:
        """The turn ``turn_id``.

        Raises:
            ApiError: ``404 unknown_turn`` when this server has none by that id.
        """
        turn = self._turns.get(turn_id)
        if turn is None:
            raise ApiError(
                404,
                "unknown_turn",
                f"no turn {turn_id!r} on this server (unknown, or finished long ago); "
                "expected the turn_id of a 'turn' event",
            )
        return turn

    def busy(self, conversation_id: str) -> ServedTurn | None:
        """The conversation's latest turn, while it has not ended."""
        turn = self._latest.get(conversation_id)
        return turn if turn is not None and not turn.done else None

    def unfinished(self, conversation_id: str) -> list[ServedTurn]:
        """The conversation's turns that have not ended, oldest first."""
        return [
            t for t in self._turns.values() if t.conversation_id == conversation_id and not t.done
        ]
