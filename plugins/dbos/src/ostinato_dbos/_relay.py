"""A turn's loop events relayed to other processes, through a DBOS stream.

In the worker, :func:`relay_event` (a listener every turn has) collects the turn's events;
they are written to the turn's stream ``ostinato.events`` in batches: at the start of
each unit's step (from inside the step), before the turn waits for decisions, and when
it ends (from the workflow). Each batch is one stream value, JSON text
``{"unit": N | null, "events": [...]}``. Each written exactly once per turn, except:

* a step that replays (recorded) does not run, so its batch is not written again;
* a step in flight at a crash runs again and writes its batch again, with the same
  ``unit`` number (the unit's sequence in the turn): readers skip a unit's second batch;
* the workflow's own writes are DBOS operations, recorded once, so a replay skips them.

Writing from inside a step, rather than as an operation of the workflow, keeps the
workflow's operation sequence independent of how many events a unit emitted (a replayed
streamed round emits one delta, not many) and of the order concurrent tool calls end in.
:class:`EventBatches` turns the stream back into events, each once, in order, and ends
the events of a turn cancelled through DBOS the way its worker's listeners heard them
end (a cancelled workflow can write no more to its stream).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ostinato.events import LoopEvent

__all__ = [
    "EVENTS_STREAM",
    "EventBatches",
    "relay_event",
    "relaying",
    "take_batch",
    "write_batch",
]

#: The stream key of a turn's events.
EVENTS_STREAM: Final = "ostinato.events"

_buffer: ContextVar[list[dict[str, Any]] | None] = ContextVar(
    "ostinato_dbos_event_buffer", default=None
)


def relay_event(event: LoopEvent) -> None:
    """The listener: keep ``event`` for the current turn's next batch."""
    buffer = _buffer.get()
    if buffer is not None:
        buffer.append(event.to_dict())


@contextlib.contextmanager
def relaying() -> Iterator[None]:
    """Collect the events of the turn run inside (the workflow enters it)."""
    token = _buffer.set([])
    try:
        yield
    finally:
        _buffer.reset(token)


def take_batch(unit: int | None) -> str | None:
    """The events collected since the last batch, as one stream value (``None``: none,
    or not in a turn), and forget them."""
    buffer = _buffer.get()
    if not buffer:
        return None
    events = list(buffer)
    buffer.clear()
    return json.dumps({"unit": unit, "events": events}, ensure_ascii=False)


async def write_batch(batch: str | None, *, always: bool = False) -> None:
    """Write ``batch`` to the current turn's stream (from a step or the workflow).

    ``always``: write even an empty batch (the workflow's writes are operations, so
    their number must be the same on every replay)."""
    from dbos import DBOS

    if batch is None and not always:
        return
    await DBOS.write_stream_async(EVENTS_STREAM, batch or '{"unit": null, "events": []}')


class EventBatches:
    """Reads a turn's batches back into events, each once, in order; and, for a turn
    cancelled through DBOS, the ending its stream lacks (:meth:`cancelled_ending`)."""

    __slots__ = ("_batch", "_ended", "_rounds", "_units", "_usage")

    def __init__(self) -> None:
        from ostinato.events import ToolBatch
        from ostinato.model import Usage

        self._units: set[int] = set()
        self._batch = ToolBatch()
        self._ended = False
        self._rounds = 0
        self._usage = Usage()

    def events(self, value: Any) -> Iterable[LoopEvent]:
        """The events of one stream value (none for a unit's batch seen before)."""
        from ostinato.events import LoopEvent

        batch = json.loads(value)
        unit = batch.get("unit")
        if unit is not None:
            if unit in self._units:
                return ()
            self._units.add(unit)
        events = [LoopEvent.from_dict(e) for e in batch["events"]]
        for event in events:
            self._follow(event)
        return events

    def _follow(self, event: LoopEvent) -> None:
        from ostinato.events import LoopEnded, RoundFinished, RoundStarted

        self._batch.record(event)
        if isinstance(event, RoundStarted):
            self._rounds, self._ended = event.round, False  # a resumed loop goes on
        elif isinstance(event, RoundFinished):
            self._usage = self._usage + event.usage
        elif isinstance(event, LoopEnded):
            self._ended = True

    def cancelled_ending(self) -> list[LoopEvent]:
        """What a turn cancelled through DBOS (its workflow cancelled) still owes its
        readers once its stream ended: a cancelled ``ToolFinished`` for each call read
        as asked for or started and not finished, then ``LoopEnded(cancelled)``, as the
        worker's own listeners heard them. (A cancelled workflow can write no more, so
        its last events never reach the stream.) Nothing when the loop had ended, or
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
