"""Which workers are alive, so that a live worker adopts the turns of a dead one.

DBOS recovers a process's own pending workflows when it restarts with the same executor
id, and re-queues any workflow on request (``DBOS.resume_workflow``), but it does not
tell a live executor from a dead one (its hosted service does that). This is the
smallest mechanism that does: each worker writes a heartbeat row
(``ostinato_dbos_workers``, in the same database); a live worker that finds a row older
than ``dead_after_seconds`` *claims* it by deleting it (one worker wins the delete), and
re-queues the turns that executor left pending. A worker that shuts down cleanly hands
its turns back itself and deletes its row. A worker whose row was claimed finds it gone
at its next beat: it was presumed dead, and its turns run elsewhere (the worker fences
itself, see :mod:`ostinato_dbos._worker`).
"""

from __future__ import annotations

import time
from typing import Any, Final

import sqlalchemy as sa

__all__ = ["SQLITE_BUSY_TIMEOUT", "TABLE", "Heartbeats", "sqlalchemy_url"]

#: The heartbeat table.
TABLE: Final = "ostinato_dbos_workers"
#: Seconds a write waits for another process's lock on a SQLite database (as DBOS's own).
SQLITE_BUSY_TIMEOUT: Final = 30.0


def sqlalchemy_url(url: str) -> sa.URL:
    """``url`` with the driver DBOS uses (psycopg 3 for Postgres)."""
    parsed = sa.make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


class Heartbeats:
    """The heartbeat rows of the workers sharing one database.

    Args:
        url: the database URL (SQLite or Postgres).
        executor_id: this worker's id.
    """

    def __init__(self, url: str, executor_id: str) -> None:
        kwargs: dict[str, Any] = {"pool_pre_ping": True}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
        self._engine = sa.create_engine(sqlalchemy_url(url), **kwargs)
        self.executor_id = executor_id
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(
                    f"CREATE TABLE IF NOT EXISTS {TABLE} "
                    "(executor_id VARCHAR(200) PRIMARY KEY, seen_at_ms BIGINT NOT NULL)"
                )
            )

    def register(self) -> None:
        """Record that this worker is alive now, creating its row (as it starts)."""
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(
                    f"INSERT INTO {TABLE} (executor_id, seen_at_ms) VALUES (:id, :now) "
                    "ON CONFLICT (executor_id) DO UPDATE SET seen_at_ms = excluded.seen_at_ms"
                ),
                {"id": self.executor_id, "now": _now_ms()},
            )

    def beat(self) -> bool:
        """Record that this worker is alive now; ``False`` when its row is gone: another
        worker claimed it (and adopted its turns), so this one must not work on them."""
        with self._engine.begin() as connection:
            updated = connection.execute(
                sa.text(f"UPDATE {TABLE} SET seen_at_ms = :now WHERE executor_id = :id"),
                {"id": self.executor_id, "now": _now_ms()},
            )
        return updated.rowcount == 1

    def claim_dead(self, dead_after_seconds: float) -> list[str]:
        """The executors silent for ``dead_after_seconds``, each claimed by this worker
        (its row deleted here, so no other worker adopts it too)."""
        cutoff = _now_ms() - int(dead_after_seconds * 1000)
        claimed: list[str] = []
        with self._engine.connect() as connection:
            rows = connection.execute(
                sa.text(f"SELECT executor_id FROM {TABLE} WHERE seen_at_ms < :cutoff"),
                {"cutoff": cutoff},
            ).fetchall()
        for (executor_id,) in rows:
            if executor_id == self.executor_id:
                continue
            with self._engine.begin() as connection:
                deleted = connection.execute(
                    sa.text(
                        f"DELETE FROM {TABLE} WHERE executor_id = :id AND seen_at_ms < :cutoff"
                    ),
                    {"id": executor_id, "cutoff": cutoff},
                )
            if deleted.rowcount == 1:
                claimed.append(str(executor_id))
        return claimed

    def forget(self) -> None:
        """Delete this worker's row (it handed its turns back)."""
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(f"DELETE FROM {TABLE} WHERE executor_id = :id"),
                {"id": self.executor_id},
            )

    def close(self) -> None:
        """Release the connections."""
        self._engine.dispose()


def _now_ms() -> int:
    return int(time.time() * 1000)
