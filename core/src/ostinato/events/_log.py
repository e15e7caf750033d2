"""A turn's log: where its events get their positions and wait for readers.

:class:`TurnLog` is the engine-neutral face: ``place`` gives an event its position (the
sink calls it when the log is one of a turn's listeners), calling the log appends the
placed event, ``read(after=N)`` / ``aread(after=N)`` return what is there after position
``N`` and then follow live until the turn ends (:meth:`TurnLog.end`). Backends: the
bounded in-memory :class:`~ostinato.events.MemoryTurnLog` (in process), and each durable
engine's (its store, readable from any process; see :mod:`ostinato.durable`).
:func:`withdrawn` applies the :class:`~ostinato.events.RoundAbandoned` events a durable
log may hold. This module must not import asyncio (the sink imports it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ostinato.events._types import LoopEvent

__all__ = ["TurnLog", "stamp", "withdrawn"]


def stamp(event: LoopEvent, turn_id: str | None, seq: int) -> LoopEvent:
    """Give ``event`` its place (the sink does, once, before anyone sees the event)."""
    object.__setattr__(event, "turn_id", turn_id)
    object.__setattr__(event, "seq", seq)
    return event


class TurnLog:
    """One turn's append-only log of events (a listener of the turn: give it to
    ``.listener(log)``, and the turn's sink numbers its events through it).

    Attributes:
        turn_id: the turn's id (stamped on every event the log places).
    """

    __slots__ = ("turn_id",)

    def __init__(self, turn_id: str | None) -> None:
        self.turn_id = turn_id

    def place(self, event: LoopEvent) -> Iterable[LoopEvent]:
        """Stamp ``event`` with its position; the events to hand to the turn's listeners
        in order: ``event`` itself, after any event the log owes its readers first (a
        durable log's :class:`~ostinato.events.RoundAbandoned`)."""
        raise NotImplementedError

    def __call__(self, event: LoopEvent) -> None:
        """Append a placed event (one the log placed before is not appended twice)."""
        raise NotImplementedError

    def end(self) -> None:
        """The turn ended: readers get what is left, then their iteration ends."""
        raise NotImplementedError

    def read(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """The events after position ``after`` (0: from the first), in order, each once;
        then those appended later, as they come, until the turn ends.

        Raises:
            TurnLogError: ``after`` is past the log's end (``past_end``) or the events
                after it are no longer kept (``expired``), raised by the first ``next``.
            TimeoutError: no event came within ``timeout`` seconds of the previous one.
        """
        raise NotImplementedError

    def aread(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`read` (bound the wait with ``asyncio.timeout``)."""
        raise NotImplementedError


def withdrawn(events: Iterable[LoopEvent]) -> list[LoopEvent]:
    """``events`` (read from a log, in order) less those a later
    :class:`~ostinato.events.RoundAbandoned` withdrew, and less the ``RoundAbandoned``
    events themselves: what the turn's answer is made of (the text deltas of the list,
    concatenated, are the turn's streamed text)."""
    kept: list[LoopEvent] = []
    for event in events:
        if event.kind == "round_abandoned":
            first: int = getattr(event, "first")  # noqa: B009  # the kind names the class
            while kept and kept[-1].seq >= first:
                kept.pop()
        else:
            kept.append(event)
    return kept
