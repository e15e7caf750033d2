"""``SQLiteSessionLog``: session logs in the SQLite file of the memory, searched with FTS5.

The entries live beside the conversations (schema version 3 of the same file): one row
per entry, its JSON form (:meth:`~ostinato.memory.SessionEntry.to_dict`), and one row of
the FTS5 index per entry with its searchable text. An append is one ``BEGIN IMMEDIATE``
transaction — the next position read and the rows written together — so concurrent
writers, threads or processes, never share a position. Connections, locking and errors
are the repository's (:class:`~ostinato_memory.SQLiteChatMemoryRepository`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from ostinato.memory import EntryKind, SessionEntry
from ostinato_memory._session_base import (
    BranchingSessionLog,
    decode_entry,
    encode_entry,
    searchable_text,
)
from ostinato_memory._sqlite import SQLiteChatMemoryRepository, _in_pool, _now_ms
from ostinato_memory._sqlite_schema import ENTRIES_FTS, ENTRIES_TABLE, translate_errors
from ostinato_memory._validation import check_conversation_id

__all__ = ["SQLiteSessionLog"]

_NEXT: Final = f"SELECT MAX(position) FROM {ENTRIES_TABLE} WHERE session_id = ?"
_INSERT: Final = (
    f"INSERT INTO {ENTRIES_TABLE} (session_id, position, kind, entry, stored_at)"
    " VALUES (?, ?, ?, ?, ?)"
)
_INDEX: Final = f"INSERT INTO {ENTRIES_FTS} (body, session_id, position) VALUES (?, ?, ?)"
_OWN: Final = (
    f"SELECT position, entry FROM {ENTRIES_TABLE} WHERE session_id = ? AND position >= ?"
    " ORDER BY position"
)
_FIRST: Final = (
    f"SELECT kind, entry FROM {ENTRIES_TABLE} WHERE session_id = ? ORDER BY position LIMIT 1"
)
_SEARCH: Final = (
    f"SELECT f.position, e.entry, -bm25({ENTRIES_FTS}) FROM {ENTRIES_FTS} f"
    f" JOIN {ENTRIES_TABLE} e ON e.session_id = f.session_id AND e.position = f.position"
    f" WHERE {ENTRIES_FTS} MATCH ? AND f.session_id = ? AND f.position < ?"
    f" ORDER BY bm25({ENTRIES_FTS}), f.position DESC LIMIT ?"
)
_IDS: Final = f"SELECT DISTINCT session_id FROM {ENTRIES_TABLE} ORDER BY session_id"
_DELETE: Final = (
    f"DELETE FROM {ENTRIES_TABLE} WHERE session_id = ?",
    f"DELETE FROM {ENTRIES_FTS} WHERE session_id = ?",
)
_NO_END: Final = 2**62


class SQLiteSessionLog(BranchingSessionLog):
    """A :class:`~ostinato.memory.SessionLog` in the SQLite memory file.

    Args:
        path: the database file (default: the memory's, ``default_sqlite_path()``); the
            conversations of a :class:`~ostinato_memory.SQLiteChatMemoryRepository` on the
            same file are untouched.
        busy_timeout: seconds to wait for another writer's lock (default 5).

    Blocking faces (``append_sync``...) come with the protocol's mixin. Close with
    :meth:`close` (or use it as a context manager).
    """

    __slots__ = ("_store",)

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        busy_timeout: float = SQLiteChatMemoryRepository.DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        self._store = SQLiteChatMemoryRepository(path, busy_timeout=busy_timeout)

    @property
    def repository(self) -> SQLiteChatMemoryRepository:
        """The repository of the same file (whose connections this log uses)."""
        return self._store

    def close(self) -> None:
        """Close this process's connections."""
        self._store.close()

    def __enter__(self) -> SQLiteSessionLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _decode(self, session_id: str, position: int, text: str) -> SessionEntry:
        return decode_entry(session_id, position, text, str(self._store.path))

    @contextmanager
    def _reading(self, action: str) -> Iterator[sqlite3.Connection]:
        store = self._store
        connection = store._connection()
        with translate_errors(store.path, action, store.busy_timeout):
            yield connection

    # -- blocking primitives --------------------------------------------------------------

    def _own_sync(self, session_id: str, start: int) -> list[SessionEntry]:
        with self._reading("read") as connection:
            rows = connection.execute(_OWN, (session_id, start)).fetchall()
        return [self._decode(session_id, int(p), str(t)) for p, t in rows]

    def _write_sync(
        self, session_id: str, entries: list[SessionEntry], branch: bool
    ) -> list[SessionEntry] | None:
        encoded = [encode_entry(e) for e in entries]
        with self._store._transaction("append to") as connection:
            last = connection.execute(_NEXT, (session_id,)).fetchone()[0]
            if branch:
                if last is not None:
                    return None
                appended = entries
            else:
                start = 0 if last is None else int(last) + 1
                appended = [e.at(start + i) for i, e in enumerate(entries)]
            now = _now_ms()
            connection.executemany(
                _INSERT,
                [
                    (session_id, e.position, e.kind.value, text, now)
                    for e, text in zip(appended, encoded)
                ],
            )
            connection.executemany(
                _INDEX,
                [(searchable_text(e), session_id, e.position) for e in appended if e.messages],
            )
        return appended

    def _parent_sync(self, session_id: str) -> tuple[str, int] | None:
        with self._reading("read") as connection:
            row = connection.execute(_FIRST, (session_id,)).fetchone()
        if row is None or row[0] != EntryKind.BRANCH.value:
            return None
        return self._decode(session_id, 0, str(row[1])).parent

    def _search_sync(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        query = " ".join(f'"{term}"' for term in terms)
        with self._reading("search") as connection:
            rows = connection.execute(
                _SEARCH, (query, session_id, _NO_END if below is None else below, limit)
            ).fetchall()
        return [(self._decode(session_id, int(p), str(t)), float(s)) for p, t, s in rows]

    def _ids_sync(self) -> list[str]:
        with self._reading("list sessions in") as connection:
            return [str(row[0]) for row in connection.execute(_IDS)]

    def _delete_sync(self, session_id: str) -> None:
        with self._store._transaction("delete from") as connection:
            for statement in _DELETE:
                connection.execute(statement, (session_id,))

    # -- the primitives and the rest of the protocol ------------------------------------

    async def _own(self, session_id: str, start: int) -> list[SessionEntry]:
        return await _in_pool(self._own_sync, session_id, start)

    async def _append_own(self, session_id: str, entries: list[SessionEntry]) -> list[SessionEntry]:
        appended = await _in_pool(self._write_sync, session_id, entries, False)
        assert appended is not None
        return appended

    async def _create_branch(self, branch_id: str, marker: SessionEntry) -> bool:
        return await _in_pool(self._write_sync, branch_id, [marker], True) is not None

    async def _parent(self, session_id: str) -> tuple[str, int] | None:
        return await _in_pool(self._parent_sync, session_id)

    async def _search_own(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        return await _in_pool(self._search_sync, session_id, terms, below, limit)

    async def session_ids(self) -> list[str]:
        """Every session id holding an entry, sorted."""
        return await _in_pool(self._ids_sync)

    async def delete(self, session_id: str) -> None:
        """Remove ``session_id``'s own entries and their index rows."""
        check_conversation_id(session_id)
        await _in_pool(self._delete_sync, session_id)

    def __repr__(self) -> str:
        return f"SQLiteSessionLog({str(self._store.path)!r})"
