"""Following a durable turn's log from any process: by position, live, to its end.

A reader polls the turn's rows after its position every ``poll_seconds`` (20 ms by
default: an event is readable well within 100 ms of its emission), and the turn's
status now and then while no row comes; once the turn is over (succeeded, failed,
cancelled) and its last rows are read, the reading ends. A turn cancelled through DBOS
ends with the events its log lacks (:mod:`ostinato_dbos._ending`), at the positions
after its last. Bad positions and unknown turns fail at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from ostinato.errors import TurnLogError

if TYPE_CHECKING:
    from ostinato.events import LoopEvent
    from ostinato_dbos._turn_log import EventStore

__all__ = ["LogReader"]

#: How many empty polls between two looks at the turn's status.
_STATUS_EVERY: Final = 5


class LogReader:
    """One reading of turn ``turn_id``'s log after ``after``.

    Args:
        store: the events table.
        turn_id: the turn.
        after: the position to read after.
        status: returns the turn's DBOS status (raises for an unknown turn).
        terminal: the statuses of a turn that is over.
    """

    def __init__(
        self,
        store: EventStore,
        turn_id: str,
        after: int,
        status: Callable[[], str],
        terminal: frozenset[str],
    ) -> None:
        if isinstance(after, bool) or not isinstance(after, int) or after < 0:
            raise ValueError(f"after must be a position (an int >= 0), got {after!r}")
        self._store = store
        self._turn_id = turn_id
        self._position = after
        self._status = status
        self._terminal = terminal
        self._checked = False
        self._empty = 0
        self._over = False
        self._ending: list[LoopEvent] | None = None

    def _check(self) -> None:
        """Fail at once for an unknown turn or a position it cannot have."""
        status = self._status()  # raises for an unknown turn
        last, purged = self._store.bounds(self._turn_id)
        after = self._position
        if purged and after < purged:
            raise TurnLogError(
                f"the events of durable turn {self._turn_id!r} were purged (its log kept "
                f"them up to position {purged}); position {after} is older than the "
                "retention\nfix: read a turn's events within "
                "OSTINATO_DBOS_EVENTS_RETENTION_SECONDS",
                turn_id=self._turn_id,
                position=after,
                reason="expired",
            )
        limit = last + len(self._cancelled_ending(last)) if status == "CANCELLED" else last
        if after > limit:
            raise TurnLogError(
                f"position {after} is past the end of durable turn {self._turn_id!r}'s log "
                f"(its last event is at {limit})\nfix: read after a position the log gave "
                "you (an event's seq), or 0",
                turn_id=self._turn_id,
                position=after,
                reason="past_end",
            )
        self._checked = True

    def _cancelled_ending(self, last: int) -> list[LoopEvent]:
        if self._ending is None:
            import dataclasses

            from ostinato_dbos._ending import CancelledEnding

            ending = CancelledEnding()
            for event in self._store.load(self._turn_id):
                if event.seq > last:
                    break  # landed after ``last``: the ending follows ``last``
                ending.follow(event)
            self._ending = [
                dataclasses.replace(e, turn_id=self._turn_id, seq=last + n)
                for n, e in enumerate(ending.cancelled_ending(), 1)
            ]
        return self._ending

    def poll(self) -> list[LoopEvent] | None:
        """The events that came since the last poll (``None``: the turn is over and
        every event was read)."""
        from ostinato.events import LoopEvent

        if self._over:
            return None
        if not self._checked:
            self._check()
        rows = self._store.after(self._turn_id, self._position)
        if rows:
            self._empty = 0
            events = [LoopEvent.from_dict(_json(data)) for _, data in rows]
            self._position = rows[-1][0]
            return events
        self._empty += 1
        if self._empty % _STATUS_EVERY != 1:
            return []
        status = self._status()
        if status not in self._terminal:
            return []
        # A cancelled turn's worker may still be writing its last rows: the log's end is
        # read before its rows, so a row that lands in between is read, and the ending
        # follows the last row this reader saw.
        last = self._store.bounds(self._turn_id)[0] if status == "CANCELLED" else None
        rows = self._store.after(self._turn_id, self._position)  # written before it ended
        if rows:
            return self.poll_rows(rows)
        self._over = True
        if last is None:
            return None
        return [e for e in self._cancelled_ending(last) if e.seq > self._position] or None

    def poll_rows(self, rows: list[tuple[int, str]]) -> list[LoopEvent]:
        """``rows`` as events, the position moved past them."""
        from ostinato.events import LoopEvent

        self._position = rows[-1][0]
        return [LoopEvent.from_dict(_json(data)) for _, data in rows]

    def read(self, poll_seconds: float, timeout: float | None) -> Iterator[LoopEvent]:
        """The events, as they come (see the module's docstring)."""
        waited_since = time.monotonic()
        while (events := self.poll()) is not None:
            if events:
                waited_since = time.monotonic()
                yield from events
                continue
            if timeout is not None and time.monotonic() - waited_since > timeout:
                raise TimeoutError(
                    f"no event of the durable turn {self._turn_id!r} within {timeout} s"
                )
            time.sleep(poll_seconds)

    async def aread(self, poll_seconds: float) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`read` (the database is read in a thread)."""
        while (events := await asyncio.to_thread(self.poll)) is not None:
            if events:
                for event in events:
                    yield event
                continue
            await asyncio.sleep(poll_seconds)


def _json(data: str) -> dict[str, Any]:
    import json

    value: dict[str, Any] = json.loads(data)
    return value
