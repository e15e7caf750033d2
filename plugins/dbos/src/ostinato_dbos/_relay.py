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
:class:`EventBatches` turns the stream back into events, each once, in order.
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
    """Reads a turn's batches back into events, each once, in order."""

    __slots__ = ("_units",)

    def __init__(self) -> None:
        self._units: set[int] = set()

    def events(self, value: Any) -> Iterable[LoopEvent]:
        """The events of one stream value (none for a unit's batch seen before)."""
        from ostinato.events import LoopEvent

        batch = json.loads(value)
        unit = batch.get("unit")
        if unit is not None:
            if unit in self._units:
                return ()
            self._units.add(unit)
        return [LoopEvent.from_dict(e) for e in batch["events"]]
