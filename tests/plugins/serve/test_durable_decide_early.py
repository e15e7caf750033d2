"""A decision sent as soon as a durable turn's stop was read: the turn logs its stop a
moment before it publishes the calls it waits for, so the server waits briefly for them
(``_published``) instead of answering ``404 unknown_pending``; a turn that ended (its
round decided already, or no stop) is told at once."""

from __future__ import annotations

import time
from typing import Any

from ostinato.durable import TurnStatus
from ostinato_serve._durable_turns import _published


class Turn:
    """A durable turn's handle as a decision reads it: ``pending()`` and ``status``."""

    def __init__(self, publishes_after: float | None, status: TurnStatus) -> None:
        self.id = "turn:c:1"
        self._at = None if publishes_after is None else time.monotonic() + publishes_after
        self.waiting: Any = object()  # the calls, as the handle gives them
        self._status = status

    def pending(self) -> Any:
        published = self._at is not None and time.monotonic() >= self._at
        return self.waiting if published else None

    @property
    def status(self) -> TurnStatus:
        return self._status


async def test_a_decision_waits_for_the_calls_the_turn_is_about_to_publish() -> None:
    turn: Any = Turn(publishes_after=0.3, status=TurnStatus.RUNNING)
    assert await _published(turn) is turn.waiting


async def test_a_turn_that_ended_or_publishes_nothing_is_told_without_a_long_wait() -> None:
    started = time.monotonic()
    ended: Any = Turn(publishes_after=None, status=TurnStatus.SUCCEEDED)
    assert await _published(ended) is None
    assert time.monotonic() - started < 1.0  # at once, not after the whole wait
    running: Any = Turn(publishes_after=None, status=TurnStatus.RUNNING)
    assert await _published(running) is None  # after the wait: none came
