"""``Steering``: add user messages to a turn while it runs.

A request given a steering inbox (``client.prompt(...).steering(steering)``) takes the
messages added to it with :meth:`Steering.add` — from any thread or task — at its next
*round boundary*: after a round's tool calls have all been answered, or after a round
that answered without tools (the turn then goes on with one more round, the answer kept
in the conversation). A steered message is a user message appended to the conversation
there, so the conversation stays valid for every provider: no tool call is ever left
without its result, and no result without its call. The turn is not cancelled.

What the turn took, with the answer it followed when there was one, is :attr:`joined`:
a memory advisor outside the loop stores it between the turn's first message and its
answer. A message added after the turn's last boundary is never taken
(:attr:`waiting` says how many are left; the caller decides whether to run them as a
turn of their own). A durable engine overrides :meth:`Steering.receive` to read the
messages from its store as a recorded operation, so a replayed turn takes the same
messages at the same round. This module must not know the loop.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ostinato.messages import Message, UserMessage

__all__ = ["Steering"]


class Steering:
    """A thread-safe inbox of user messages for one running turn (give one to one turn)."""

    __slots__ = ("_joined", "_lock", "_waiting")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[UserMessage] = []
        self._joined: list[Message] = []

    def add(self, message: str | UserMessage) -> None:
        """Queue ``message`` (text, or a :class:`~ostinato.messages.UserMessage`) for the
        turn's next round boundary (from any thread).

        Raises:
            TypeError: ``message`` is neither.
            ValueError: it is blank text.
        """
        if isinstance(message, str):
            if not message.strip():
                raise ValueError("a steering message must not be blank")
            message = UserMessage(message)
        elif not isinstance(message, UserMessage):
            raise TypeError(
                f"Steering.add() takes text or a UserMessage, got {type(message).__name__}"
            )
        with self._lock:
            self._waiting.append(message)

    @property
    def waiting(self) -> int:
        """How many added messages the turn has not taken yet."""
        with self._lock:
            return len(self._waiting)

    def drain(self) -> list[UserMessage]:
        """Remove and return the messages not taken yet (for a caller whose turn ended
        before taking them)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
        return waiting

    @property
    def joined(self) -> tuple[Message, ...]:
        """What joined the conversation, in order: each taken message, preceded by the
        answer it followed when the turn had answered without tools."""
        with self._lock:
            return tuple(self._joined)

    async def receive(self) -> list[UserMessage]:
        """The messages waiting now, removed (none: an empty list). The tool loop calls it
        at each round boundary; an engine overrides it to read durable input."""
        return self.drain()

    async def take(self, before: Sequence[Message] = ()) -> list[UserMessage]:
        """What :meth:`receive` gives, recorded in :attr:`joined` after ``before`` (the
        answer the messages follow, if any) when there is any."""
        taken = await self.receive()
        if taken:
            with self._lock:
                self._joined.extend((*before, *taken))
        return taken

    def __repr__(self) -> str:
        return f"<Steering waiting={self.waiting} joined={len(self._joined)}>"
