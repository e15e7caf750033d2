"""``PostgresSessionLog``: session logs in PostgreSQL, searched with its full-text search.

One row per entry (schema version 3), its JSON form and its text, with a generated
``tsvector`` under a GIN index. An append is one transaction that first locks the
session's row (an upsert into ``ostinato_memory_sessions``), so appenders of one session
take turns — in one process or many — and never share a position. A search is
``plainto_tsquery('simple', ...)`` over that vector, ranked with ``ts_rank``.
Connections, timeouts and errors are the repository's
(:class:`~ostinato_memory_postgres.PostgresChatMemoryRepository`).
"""

from __future__ import annotations

from typing import Any, Final

import psycopg
from pydantic import SecretStr

from ostinato.memory import EntryKind, SessionEntry
from ostinato_memory import (
    BranchingSessionLog,
    check_conversation_id,
    decode_entry,
    encode_entry,
    searchable_text,
)
from ostinato_memory_postgres._repository import PostgresChatMemoryRepository
from ostinato_memory_postgres._schema import ENTRIES_TABLE, SESSIONS_TABLE

__all__ = ["PostgresSessionLog"]

Connection = psycopg.AsyncConnection[Any]

_LOCK: Final = (
    f"INSERT INTO {SESSIONS_TABLE} (session_id) VALUES (%s)"
    " ON CONFLICT (session_id) DO UPDATE SET updated_at = clock_timestamp()"
)
_LAST: Final = f"SELECT max(position) FROM {ENTRIES_TABLE} WHERE session_id = %s"
_INSERT: Final = (
    f"INSERT INTO {ENTRIES_TABLE} (session_id, position, kind, entry, body)"
    " VALUES (%s, %s, %s, %s, %s)"
)
_OWN: Final = (
    f"SELECT position, entry FROM {ENTRIES_TABLE} WHERE session_id = %s AND position >= %s"
    " ORDER BY position"
)
_FIRST: Final = (
    f"SELECT kind, entry FROM {ENTRIES_TABLE} WHERE session_id = %s ORDER BY position LIMIT 1"
)
_SEARCH: Final = (
    f"SELECT position, entry, ts_rank(search, query) AS rank"
    f" FROM {ENTRIES_TABLE}, plainto_tsquery('simple', %s) AS query"
    " WHERE session_id = %s AND position < %s AND search @@ query"
    " ORDER BY rank DESC, position DESC LIMIT %s"
)
_IDS: Final = f'SELECT DISTINCT session_id COLLATE "C" AS id FROM {ENTRIES_TABLE} ORDER BY id'
_DELETE: Final = (
    f"DELETE FROM {ENTRIES_TABLE} WHERE session_id = %s",
    f"DELETE FROM {SESSIONS_TABLE} WHERE session_id = %s",
)
_NO_END: Final = 2**31 - 1


class PostgresSessionLog(BranchingSessionLog):
    """A :class:`~ostinato.memory.SessionLog` in PostgreSQL.

    Args:
        url: the database, as for :class:`~ostinato_memory_postgres.PostgresChatMemoryRepository`
            (the conversations there are untouched).
        pool_min_size, pool_max_size, timeout: as for the repository.

    Blocking faces (``append_sync``...) come with the protocol's mixin. Close with
    :meth:`aclose`.
    """

    __slots__ = ("_store",)

    def __init__(
        self,
        url: str | SecretStr,
        *,
        pool_min_size: int = 1,
        pool_max_size: int = 10,
        timeout: float = 10.0,
    ) -> None:
        self._store = PostgresChatMemoryRepository(
            url, pool_min_size=pool_min_size, pool_max_size=pool_max_size, timeout=timeout
        )

    @property
    def url(self) -> str:
        """The database URL, password masked."""
        return self._store.url

    async def aclose(self) -> None:
        """Close every pool."""
        await self._store.aclose()

    def _decode(self, session_id: str, rows: list[tuple[Any, ...]]) -> list[SessionEntry]:
        return [decode_entry(session_id, int(r[0]), str(r[1]), self.url) for r in rows]

    async def _own(self, session_id: str, start: int) -> list[SessionEntry]:
        async def work(connection: Connection) -> list[SessionEntry]:
            cursor = await connection.execute(_OWN, (session_id, start))
            return self._decode(session_id, await cursor.fetchall())

        return await self._store._run("read", work)

    async def _write(
        self, session_id: str, entries: list[SessionEntry], branch: bool
    ) -> list[SessionEntry] | None:
        encoded = [encode_entry(e) for e in entries]  # fail before touching the store

        async def work(connection: Connection) -> list[SessionEntry] | None:
            async with connection.pipeline(), connection.transaction():
                await connection.execute(_LOCK, (session_id,))
                cursor = await connection.execute(_LAST, (session_id,))
                row = await cursor.fetchone()
                last = None if row is None else row[0]
                if branch:
                    if last is not None:
                        return None
                    appended = entries
                else:
                    start = 0 if last is None else int(last) + 1
                    appended = [e.at(start + i) for i, e in enumerate(entries)]
                rows = [
                    (session_id, e.position, e.kind.value, text, searchable_text(e))
                    for e, text in zip(appended, encoded)
                ]
                async with connection.cursor() as insert:
                    await insert.executemany(_INSERT, rows)
                return appended

        return await self._store._run("append to", work)

    async def _append_own(self, session_id: str, entries: list[SessionEntry]) -> list[SessionEntry]:
        appended = await self._write(session_id, entries, False)
        assert appended is not None
        return appended

    async def _create_branch(self, branch_id: str, marker: SessionEntry) -> bool:
        return await self._write(branch_id, [marker], True) is not None

    async def _parent(self, session_id: str) -> tuple[str, int] | None:
        async def work(connection: Connection) -> tuple[str, int] | None:
            cursor = await connection.execute(_FIRST, (session_id,))
            row = await cursor.fetchone()
            if row is None or row[0] != EntryKind.BRANCH.value:
                return None
            return decode_entry(session_id, 0, str(row[1]), self.url).parent

        return await self._store._run("read", work)

    async def _search_own(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        async def work(connection: Connection) -> list[tuple[SessionEntry, float]]:
            bound = _NO_END if below is None else below
            cursor = await connection.execute(_SEARCH, (" ".join(terms), session_id, bound, limit))
            rows = await cursor.fetchall()
            return [
                (decode_entry(session_id, int(p), str(t), self.url), float(rank))
                for p, t, rank in rows
            ]

        return await self._store._run("search", work)

    async def session_ids(self) -> list[str]:
        """Every session id holding an entry, sorted."""

        async def work(connection: Connection) -> list[str]:
            cursor = await connection.execute(_IDS)
            return [str(row[0]) for row in await cursor.fetchall()]

        return await self._store._run("list sessions", work)

    async def delete(self, session_id: str) -> None:
        """Remove ``session_id``'s own entries."""
        check_conversation_id(session_id)

        async def work(connection: Connection) -> None:
            async with connection.pipeline(), connection.transaction():
                for statement in _DELETE:
                    await connection.execute(statement, (session_id,))

        await self._store._run("delete from", work)

    def __repr__(self) -> str:
        return f"PostgresSessionLog({self.url!r})"
