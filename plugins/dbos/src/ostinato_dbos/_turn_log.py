"""A durable turn's log in the system database: written live by its worker, read by
position from any process.

The table ``ostinato_turn_events`` (in the DBOS system database, SQLite or Postgres)
holds one row per event, ``(turn_id, seq, data, written_at_ms)``, ``data`` the event's
JSON form. In the worker, a turn's :class:`DbosTurnLog` (a
:class:`~ostinato.durable.ReplayedTurnLog` loaded from the rows already there) places
each event and hands the new ones to the process's :class:`EventWriter`, a thread that
inserts them as they come (a few at a time, in position order), so a reader sees an
event within milliseconds of its emission, not at the next step. Readers poll the rows
after their position (:class:`EventStore`). A purged turn keeps one row, ``seq`` 0,
saying how far its log went (``{"purged_through": N}``): reading it then is an
``expired`` error, not an empty log.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa

from ostinato.durable import ReplayedTurnLog
from ostinato_dbos._heartbeats import SQLITE_BUSY_TIMEOUT, sqlalchemy_url

if TYPE_CHECKING:
    from ostinato.events import LoopEvent

__all__ = ["EVENTS_TABLE", "DbosTurnLog", "EventStore", "EventWriter"]

#: The table of every durable turn's events.
EVENTS_TABLE: Final = "ostinato_turn_events"
_STOP: Final = object()


class EventStore:
    """The events table of one system database (``url``)."""

    def __init__(self, url: str) -> None:
        kwargs: dict[str, Any] = {"pool_pre_ping": True}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
        self._engine = sa.create_engine(sqlalchemy_url(url), **kwargs)
        if url.startswith("sqlite"):
            # Readers poll while the worker writes: in SQLite's write-ahead-log mode they
            # never block its commits (in the default mode a reader's lock holds a commit
            # back, and its busy wait stretches the delay to hundreds of ms). The mode is
            # the database file's, kept once set.
            with self._engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA journal_mode=WAL")
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(
                    f"CREATE TABLE IF NOT EXISTS {EVENTS_TABLE} (turn_id VARCHAR(200) NOT NULL, "
                    "seq BIGINT NOT NULL, data TEXT NOT NULL, written_at_ms BIGINT NOT NULL, "
                    "PRIMARY KEY (turn_id, seq))"
                )
            )

    def load(self, turn_id: str) -> list[LoopEvent]:
        """Every event stored for ``turn_id``, in order."""
        from ostinato.events import LoopEvent

        return [LoopEvent.from_dict(json.loads(data)) for _, data in self.after(turn_id, 0)]

    def after(self, turn_id: str, after: int, limit: int = 1000) -> list[tuple[int, str]]:
        """The rows ``(seq, data)`` of ``turn_id`` after position ``after``, in order."""
        with self._engine.connect() as connection:
            rows = connection.execute(
                sa.text(
                    f"SELECT seq, data FROM {EVENTS_TABLE} WHERE turn_id = :t AND seq > :a "
                    "ORDER BY seq LIMIT :n"
                ),
                {"t": turn_id, "a": after, "n": limit},
            ).fetchall()
        return [(int(seq), str(data)) for seq, data in rows]

    def bounds(self, turn_id: str) -> tuple[int, int]:
        """``(last, purged_through)``: the last position stored (0: none) and how far
        the log was purged (0: it was not)."""
        with self._engine.connect() as connection:
            last = connection.execute(
                sa.text(f"SELECT MAX(seq) FROM {EVENTS_TABLE} WHERE turn_id = :t AND seq > 0"),
                {"t": turn_id},
            ).scalar()
            mark = connection.execute(
                sa.text(f"SELECT data FROM {EVENTS_TABLE} WHERE turn_id = :t AND seq = 0"),
                {"t": turn_id},
            ).scalar()
        purged = int(json.loads(mark)["purged_through"]) if mark else 0
        return max(int(last or 0), purged), purged

    def insert(self, rows: Iterable[tuple[str, int, str]]) -> None:
        """Insert ``(turn_id, seq, data)`` rows (a row already there stays as it is)."""
        now = int(time.time() * 1000)
        values = [{"t": t, "s": s, "d": d, "w": now} for t, s, d in rows]
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(
                    f"INSERT INTO {EVENTS_TABLE} (turn_id, seq, data, written_at_ms) "
                    "VALUES (:t, :s, :d, :w) ON CONFLICT (turn_id, seq) DO NOTHING"
                ),
                values,
            )

    def quiet_since(self, cutoff_ms: int) -> list[str]:
        """The turns whose last event was written before ``cutoff_ms`` (and not purged)."""
        with self._engine.connect() as connection:
            rows = connection.execute(
                sa.text(
                    f"SELECT turn_id FROM {EVENTS_TABLE} WHERE seq > 0 GROUP BY turn_id "
                    "HAVING MAX(written_at_ms) < :c"
                ),
                {"c": cutoff_ms},
            ).fetchall()
        return [str(turn_id) for (turn_id,) in rows]

    def purge(self, turn_id: str) -> None:
        """Delete the events of ``turn_id``, leaving the row that says how far they went."""
        last, _ = self.bounds(turn_id)
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(f"DELETE FROM {EVENTS_TABLE} WHERE turn_id = :t"), {"t": turn_id}
            )
            connection.execute(
                sa.text(
                    f"INSERT INTO {EVENTS_TABLE} (turn_id, seq, data, written_at_ms) "
                    "VALUES (:t, 0, :d, :w)"
                ),
                {"t": turn_id, "d": json.dumps({"purged_through": last}), "w": 0},
            )

    def close(self) -> None:
        """Release the connections."""
        self._engine.dispose()


class EventWriter:
    """The worker's thread writing its turns' events (one per process).

    Args:
        store: the events table.
        check: called before each write (the worker's lease check: it ends a worker whose
            turns were adopted, so a worker that was presumed dead — stalled, frozen —
            writes nothing more into the logs of turns another worker now runs).
    """

    def __init__(self, store: EventStore, check: Callable[[], None] | None = None) -> None:
        self.store = store
        self._check = check
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._done = threading.Condition()
        self._queued = 0
        self._written = 0
        self._thread = threading.Thread(target=self._run, name="ostinato-dbos-events", daemon=True)
        self._thread.start()

    def put(self, turn_id: str, seq: int, data: str) -> None:
        """Write this row soon (rows are written in the order they are put)."""
        with self._done:
            self._queued += 1
        self._queue.put((turn_id, seq, data))

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every row put so far is written."""
        with self._done:
            target = self._queued
            self._done.wait_for(lambda: self._written >= target, timeout)

    def _run(self) -> None:
        import logging

        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            rows = [first]
            while len(rows) < 500:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    self._queue.put(_STOP)
                    break
                rows.append(item)
            if self._check is not None:
                self._check()  # fenced: not into a log another worker now writes
            for attempt in range(20):
                try:
                    self.store.insert(rows)
                    break
                except Exception:  # a database hiccup: the rows are written again
                    logging.getLogger("ostinato_dbos").exception("writing turn events failed")
                    time.sleep(min(0.05 * 2**attempt, 2.0))
            with self._done:
                self._written += len(rows)
                self._done.notify_all()

    def close(self) -> None:
        """Write what is left, then stop the thread."""
        self._queue.put(_STOP)
        self._thread.join(30)


class DbosTurnLog(ReplayedTurnLog):
    """A durable turn's log in its worker: new events go to the :class:`EventWriter`."""

    __slots__ = ("_writer",)

    def __init__(self, turn_id: str, stored: Iterable[LoopEvent], writer: EventWriter) -> None:
        super().__init__(turn_id, stored)
        self._writer = writer

    def write(self, event: LoopEvent) -> None:
        """Hand ``event`` to the writer thread."""
        assert self.turn_id is not None
        self._writer.put(self.turn_id, event.seq, json.dumps(event.to_dict(), ensure_ascii=False))

    def end(self) -> None:
        """Wait until the turn's events are written (before its workflow ends)."""
        self._writer.flush()
