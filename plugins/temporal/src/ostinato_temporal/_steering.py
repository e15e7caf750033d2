"""A Temporal turn's steering: the messages sent to it as signals, taken at round
boundaries.

The turn's workflow buffers the texts of each ``ostinato.steer`` signal here as the
signal is delivered. A signal is an event of the workflow's history, delivered at the
same point of every replay, before the code it came with resumes: :meth:`receive` at a
round boundary returns the same messages on every replay, so a replayed turn takes them
at the same round. A signal that carries an id (the onward steering of a follow-up, which
a retried activity may send twice) is taken once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.messages import UserMessage
from ostinato.runtime import Steering

__all__ = ["TemporalSteering"]


class TemporalSteering(Steering):
    """The steering inbox of one turn's workflow (see the module's docstring)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def signalled(self, message: Mapping[str, Any]) -> None:
        """Buffer the texts of one steer signal (``{"texts": [...], "id": ...}``): a
        signal whose id was seen is skipped, as are blank texts and what is not text (a
        signal handler must not fail the workflow)."""
        key = message.get("id")
        if key is not None:
            if str(key) in self._seen:
                return
            self._seen.add(str(key))
        for text in message.get("texts") or ():
            if isinstance(text, str) and text.strip():
                self.add(text)

    async def receive(self) -> list[UserMessage]:
        """The messages signalled since the previous round boundary (see the module's
        docstring)."""
        return self.drain()
