"""The in-process turn log: :class:`MemoryTurnLog`, bounded, and :class:`MemoryTurnLogs`,
the logs of many turns by id, each kept a while after its turn ended.

A log is a listener of its turn: it costs a turn nothing until it is given to one
(``.listener(log)``), then one append per event; readers are sync iterators (any thread)
or async iterators (any event loop), woken when an event is appended. The log keeps the
last ``max_events`` events: a reader that fell further behind gets a clear error
(``expired``), never a gap.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Final

from ostinato.errors import TurnLogError
from ostinato.events._sink import TurnLog, stamp
from ostinato.events._types import LoopEvent

__all__ = ["DEFAULT_MAX_EVENTS", "MemoryTurnLog", "MemoryTurnLogs"]

#: How many events a :class:`MemoryTurnLog` keeps by default.
DEFAULT_MAX_EVENTS: Final = 10_000


class MemoryTurnLog(TurnLog):
    """A turn's log in this process (see the module's docstring).

    Args:
        turn_id: the turn's id, stamped on its events.
        max_events: how many of the latest events it keeps (the retention).
    """

    __slots__ = ("_cond", "_ended", "_ended_at", "_events", "_last", "_waiters")

    def __init__(self, turn_id: str | None = None, *, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, got {max_events}")
        super().__init__(turn_id)
        self._events: deque[LoopEvent] = deque(maxlen=max_events)
        self._last = 0
        self._ended = False
        self._ended_at: float | None = None
        self._cond = threading.Condition()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def last(self) -> int:
        """The position of the last event appended (0: none yet)."""
        return self._last

    @property
    def ended(self) -> bool:
        """Whether the turn ended (:meth:`end`)."""
        return self._ended

    @property
    def ended_at(self) -> float | None:
        """When the turn ended (``time.monotonic()``), or ``None``."""
        return self._ended_at

    def place(self, event: LoopEvent) -> Iterable[LoopEvent]:
        """Stamp ``event`` with the next position."""
        return (stamp(event, self.turn_id, self._last + 1),)

    def __call__(self, event: LoopEvent) -> None:
        """Append ``event`` (placed by this log) and wake the readers."""
        with self._cond:
            if event.seq <= self._last:
                return
            self._events.append(event)
            self._last = event.seq
            self._wake()

    def end(self) -> None:
        """The turn ended: readers get what is left, then stop."""
        with self._cond:
            if not self._ended:
                self._ended = True
                self._ended_at = time.monotonic()
                self._wake()

    def _wake(self) -> None:
        self._cond.notify_all()
        waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_resolve, future)

    def _after(self, after: int) -> list[LoopEvent]:
        """The events after ``after`` (under the lock)."""
        if after > self._last:
            raise TurnLogError(
                f"position {after} is past the end of the log of turn {self.turn_id!r} "
                f"(its last event is at {self._last})\n"
                "fix: read after a position the log gave you (an event's seq), or 0",
                turn_id=self.turn_id,
                position=after,
                reason="past_end",
            )
        events = self._events
        first = events[0].seq if events else self._last + 1
        if after < first - 1:
            raise TurnLogError(
                f"the events of turn {self.turn_id!r} after position {after} are no longer "
                f"kept: the log keeps the last {events.maxlen} (from position {first})\n"
                "fix: read sooner, or raise max_events",
                turn_id=self.turn_id,
                position=after,
                reason="expired",
            )
        return list(itertools.islice(events, after - first + 1, None))

    def check(self, after: int) -> None:
        """Raise now what reading after ``after`` would raise first.

        Raises:
            TurnLogError: ``past_end`` or ``expired`` (see :meth:`TurnLog.read`).
            ValueError: ``after`` is not a position.
        """
        _check(after)
        with self._cond:
            self._after(after)

    def read(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """See :meth:`TurnLog.read`."""
        _check(after)
        position = after
        while True:
            with self._cond:
                batch = self._after(position)
                if not batch:
                    if self._ended:
                        return
                    if not self._cond.wait(timeout):
                        raise TimeoutError(f"no event of turn {self.turn_id!r} within {timeout} s")
                    continue
            for event in batch:
                yield event
                position = event.seq

    async def aread(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """See :meth:`TurnLog.aread`."""
        _check(after)
        position = after
        loop = asyncio.get_running_loop()
        while True:
            with self._cond:
                batch = self._after(position)
                if not batch:
                    if self._ended:
                        return
                    future: asyncio.Future[None] = loop.create_future()
                    self._waiters.append((loop, future))
            if not batch:
                await future
                continue
            for event in batch:
                yield event
                position = event.seq

    def __repr__(self) -> str:
        state = "ended" if self._ended else "open"
        return f"<MemoryTurnLog {self.turn_id!r} last={self._last} {state}>"


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _check(after: int) -> None:
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise ValueError(f"after must be a position (an int >= 0), got {after!r}")


class MemoryTurnLogs:
    """The in-process logs of many turns, by turn id; a turn's log is kept
    ``keep_seconds`` after it ended, and at most ``max_turns`` logs are kept (the oldest
    ended ones go first).

    Args:
        max_events: each log's ``max_events``.
        keep_seconds: how long an ended turn's log stays readable.
        max_turns: how many logs are kept at most.
    """

    __slots__ = ("_lock", "_logs", "keep_seconds", "max_events", "max_turns")

    def __init__(
        self,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
        keep_seconds: float = 300.0,
        max_turns: int = 1000,
    ) -> None:
        self.max_events = max_events
        self.keep_seconds = keep_seconds
        self.max_turns = max_turns
        self._logs: dict[str, MemoryTurnLog] = {}
        self._lock = threading.Lock()

    def open(self, turn_id: str) -> MemoryTurnLog:
        """A new log for the turn ``turn_id``.

        Raises:
            ValueError: a log of that id is kept already.
        """
        with self._lock:
            self._forget_old()
            if turn_id in self._logs:
                raise ValueError(f"a log of turn {turn_id!r} exists already")
            log = self._logs[turn_id] = MemoryTurnLog(turn_id, max_events=self.max_events)
            return log

    def get(self, turn_id: str) -> MemoryTurnLog:
        """The log of turn ``turn_id``.

        Raises:
            TurnLogError: no log of that id is kept (``unknown_turn``).
        """
        with self._lock:
            self._forget_old()
            log = self._logs.get(turn_id)
        if log is None:
            raise TurnLogError(
                f"no turn log has the id {turn_id!r} (an ended turn's log is kept "
                f"{self.keep_seconds:g} s)",
                turn_id=turn_id,
                position=None,
                reason="unknown_turn",
            )
        return log

    def __contains__(self, turn_id: object) -> bool:
        with self._lock:
            self._forget_old()
            return turn_id in self._logs

    def __len__(self) -> int:
        return len(self._logs)

    def _forget_old(self) -> None:
        now = time.monotonic()
        for turn_id, log in list(self._logs.items()):
            if log.ended_at is not None and now - log.ended_at > self.keep_seconds:
                del self._logs[turn_id]
        if len(self._logs) >= self.max_turns:
            ended = sorted(
                (log.ended_at, turn_id)
                for turn_id, log in self._logs.items()
                if log.ended_at is not None
            )
            for _, turn_id in ended[: len(self._logs) - self.max_turns + 1]:
                del self._logs[turn_id]
