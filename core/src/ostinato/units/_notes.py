"""Notes a unit leaves in its durable turn while it runs, read back when it runs again.

A unit whose work outlives its process (a long-running call answered with a handle to
poll, say) writes a note as soon as it has one. A durable engine keeps the notes of a
turn with the turn, so when the unit runs again after a crash, on this worker or
another, it reads the note and picks up where it was instead of starting the work
again. An engine makes its notes current around the turn (:func:`keeping_unit_notes`);
outside one, :func:`unit_notes` is ``None`` and nothing is kept.

Keys are the unit's to choose; a key made from :func:`~ostinato.units.idempotency_key`
is the same each time the unit runs again. Values are JSON.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, Protocol

__all__ = ["UnitNotes", "keeping_unit_notes", "unit_notes"]


class UnitNotes(Protocol):
    """Where a durable engine keeps the notes of the turn running now."""

    async def write(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON) under ``key``, replacing what was there, before
        returning."""
        ...

    async def read(self, key: str) -> Any:
        """The value kept under ``key`` by this or an earlier run of the turn, or
        ``None``."""
        ...


_NOTES: ContextVar[UnitNotes | None] = ContextVar("ostinato_unit_notes", default=None)


def unit_notes() -> UnitNotes | None:
    """The notes of the durable turn running now, or ``None`` (nothing is kept)."""
    return _NOTES.get()


@contextlib.contextmanager
def keeping_unit_notes(notes: UnitNotes) -> Iterator[None]:
    """Make ``notes`` the turn's notes for the code inside (an engine enters it around
    a durable turn)."""
    token = _NOTES.set(notes)
    try:
        yield
    finally:
        _NOTES.reset(token)
