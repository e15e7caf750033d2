"""Deciding a durable turn's waiting calls once, from any process.

Every decision first claims its pending round in the table ``ostinato_turn_decisions``
(in the DBOS system database, SQLite or Postgres): one row per ``(turn_id, round)``,
inserted by the first decider; ``round`` holds the number of the wait (its pending value,
hashed: a turn may wait more than once in a round, for an approval and for a call a
crash left in doubt). A second decision for the same round — from another
server process, the CLI or the API, at the same moment or later — finds the row and is
refused with a clear error, instead of being dropped without a word. A claim whose
message could not be sent is given back.
"""

from __future__ import annotations

import time
from typing import Any, Final

import sqlalchemy as sa

from ostinato_dbos._heartbeats import SQLITE_BUSY_TIMEOUT, sqlalchemy_url

__all__ = ["DECISIONS_TABLE", "DecisionClaims"]

#: The table of claimed decisions.
DECISIONS_TABLE: Final = "ostinato_turn_decisions"


class DecisionClaims:
    """The claimed decisions of one system database (``url``)."""

    def __init__(self, url: str) -> None:
        kwargs: dict[str, Any] = {"pool_pre_ping": True}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
        self._engine = sa.create_engine(sqlalchemy_url(url), **kwargs)
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(
                    f"CREATE TABLE IF NOT EXISTS {DECISIONS_TABLE} (turn_id VARCHAR(200) "
                    "NOT NULL, round BIGINT NOT NULL, decided_at_ms BIGINT NOT NULL, "
                    "PRIMARY KEY (turn_id, round))"
                )
            )

    def claim(self, turn_id: str, round: int) -> bool:
        """Claim the decision of ``turn_id``'s pending ``round``: ``False`` when it was
        claimed already."""
        try:
            with self._engine.begin() as connection:
                connection.execute(
                    sa.text(
                        f"INSERT INTO {DECISIONS_TABLE} (turn_id, round, decided_at_ms) "
                        "VALUES (:t, :r, :at)"
                    ),
                    {"t": turn_id, "r": round, "at": int(time.time() * 1000)},
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def decided(self, turn_id: str) -> bool:
        """Whether any waiting round of ``turn_id`` was decided."""
        with self._engine.connect() as connection:
            row = connection.execute(
                sa.text(f"SELECT 1 FROM {DECISIONS_TABLE} WHERE turn_id = :t LIMIT 1"),
                {"t": turn_id},
            ).first()
        return row is not None

    def release(self, turn_id: str, round: int) -> None:
        """Give a claim back (its decision never reached the turn)."""
        with self._engine.begin() as connection:
            connection.execute(
                sa.text(f"DELETE FROM {DECISIONS_TABLE} WHERE turn_id = :t AND round = :r"),
                {"t": turn_id, "r": round},
            )

    def close(self) -> None:
        """Release the connections."""
        self._engine.dispose()
