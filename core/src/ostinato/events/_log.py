"""Reading a turn's log: :func:`withdrawn` applies the
:class:`~ostinato.events.RoundAbandoned` events a durable turn's log may hold (the
log itself, :class:`~ostinato.events.TurnLog`, is the sink's collaborator: see
:mod:`ostinato.events._sink`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ostinato.events._types import LoopEvent

__all__ = ["withdrawn"]


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
