"""``SQLiteChatMemoryRepository``: conversations in one SQLite file, shared by threads and
processes.

Built on the standard library's ``sqlite3``: WAL mode, one transaction per write, a busy
timeout for concurrent writers, a versioned schema created on first use (see
:mod:`ostinato_memory._sqlite_schema`). Each message is stored in its JSON form
(``Message.to_dict``), so it comes back equal: text, tool calls, tool responses, media,
metadata. Each row also records when its message was first stored, so the conversations
list by recency and ``ostinato logs show`` says when each message came. The async methods
run the blocking work on a small thread pool of their own (``ostinato-memory-sqlite``),
never on the event loop — and not on the tool thread pool: sync tools that hang there
must not stall every conversation's memory.
"""

from __future__ import annotations

import contextvars
import functools
import os
import sqlite3
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, TypeVar

from ostinato.messages import Message
from ostinato_memory._codec import decode_message, encode_message
from ostinato_memory._listing import ConversationSummary, StoredMessage
from ostinato_memory._repository import ConversationChange
from ostinato_memory._sqlite_schema import (
    MESSAGES_TABLE,
    connect,
    default_sqlite_path,
    translate_errors,
)
from ostinato_memory._validation import check_conversation_id, check_messages

if TYPE_CHECKING:
    from ostinato_memory._sqlite_session import SQLiteSessionLog

__all__ = ["SQLiteChatMemoryRepository"]

# Connections inherited over fork: never used nor closed in the child (closing could
# checkpoint or remove the parent's WAL file), only kept from garbage collection.
_INHERITED: list[sqlite3.Connection] = []

T = TypeVar("T")

#: Threads of the pool the async methods run on (SQLite writes one at a time anyway).
POOL_THREADS: Final = 8
_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _reset_pool_after_fork() -> None:
    global _pool, _pool_lock
    _pool_lock = threading.Lock()
    _pool = None  # its threads do not exist in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_pool_after_fork)


async def _in_pool(func: Callable[..., T], /, *args: object) -> T:
    """Run ``func(*args)`` on the repository pool, with the caller's context variables."""
    global _pool
    import asyncio

    pool = _pool
    if pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(
                    POOL_THREADS, thread_name_prefix="ostinato-memory-sqlite"
                )
            pool = _pool
    call = functools.partial(contextvars.copy_context().run, func, *args)
    return await asyncio.get_running_loop().run_in_executor(pool, call)


_SELECT = (
    f"SELECT position, message FROM {MESSAGES_TABLE} WHERE conversation_id = ? ORDER BY position"
)
_SELECT_TIMED = (
    f"SELECT position, message, stored_at FROM {MESSAGES_TABLE} WHERE conversation_id = ?"
    " ORDER BY position"
)
_DELETE = f"DELETE FROM {MESSAGES_TABLE} WHERE conversation_id = ?"
_INSERT = (
    f"INSERT INTO {MESSAGES_TABLE} (conversation_id, position, type, message, stored_at)"
    " VALUES (?, ?, ?, ?, ?)"
)
_IDS = f"SELECT DISTINCT conversation_id FROM {MESSAGES_TABLE} ORDER BY conversation_id"
_RECENT = (
    f"SELECT conversation_id, COUNT(*), MAX(stored_at) AS changed FROM {MESSAGES_TABLE}"
    " GROUP BY conversation_id ORDER BY changed IS NULL, changed DESC, conversation_id LIMIT ?"
)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _moment(stored_at: int | None) -> datetime | None:
    return None if stored_at is None else datetime.fromtimestamp(stored_at / 1000, UTC)


def _encode(conversation_id: str, messages: Sequence[Message]) -> list[tuple[str, int, str, str]]:
    return [
        (
            conversation_id,
            position,
            message.message_type.value,
            encode_message(conversation_id, position, message),
        )
        for position, message in enumerate(messages)
    ]


def _decode(conversation_id: str, rows: Sequence[tuple[int, str]], path: Path) -> list[Message]:
    return [decode_message(conversation_id, position, text, str(path)) for position, text in rows]


class SQLiteChatMemoryRepository:
    """A :class:`~ostinato.memory.ChatMemoryRepository` (and
    :class:`~ostinato_memory.UpdatableChatMemoryRepository`) in an SQLite file.

    Args:
        path: the database file (default :func:`default_sqlite_path`:
            ``$XDG_DATA_HOME/ostinato/memory.sqlite3``). Created, with its directory, on
            first use. A file that is not an ostinato-memory database is never written.
        busy_timeout: seconds a read or write waits for another connection's lock before
            :class:`~ostinato_memory.DatabaseLockedError` (default 5).

    Every method has a blocking twin with the suffix ``_sync`` (``save_all_sync``...)
    that runs on the calling thread; the async methods run those on ostinato's thread
    pool. Each thread uses its own connection. Saving an empty list removes the
    conversation. Call :meth:`close` (or use the repository as a context manager) to
    close the connections when no operation is running.
    """

    DEFAULT_BUSY_TIMEOUT: ClassVar[float] = 5.0

    __slots__ = ("_busy_timeout", "_connections", "_local", "_lock", "_path", "_write_lock")

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        if path is None:
            path = default_sqlite_path()
        if str(path) == ":memory:" or str(path).startswith("file:"):
            raise ValueError(
                f"SQLiteChatMemoryRepository needs a file path, got {str(path)!r} "
                "(each thread would see its own database)\n"
                "fix: use InMemoryChatMemoryRepository() for memory that needs no file"
            )
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, int | float):
            raise TypeError(f"busy_timeout must be a number of seconds, got {busy_timeout!r}")
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout must be >= 0 seconds, got {busy_timeout!r}")
        self._path = Path(path).expanduser().absolute()
        self._busy_timeout = float(busy_timeout)
        # Writers of this process queue here, in order, instead of polling SQLite's busy
        # handler against each other (which can starve one past the timeout under load);
        # the busy timeout then only arbitrates between processes.
        # Per process: a lock held by some thread at fork time would never be released in
        # the child, so a child makes its own.
        self._write_lock = (os.getpid(), threading.Lock())
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, sqlite3.Connection]] = []

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def busy_timeout(self) -> float:
        """Seconds an operation waits for a lock."""
        return self._busy_timeout

    # -- connections --------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        held: tuple[int, sqlite3.Connection] | None = getattr(self._local, "held", None)
        pid = os.getpid()
        if held is not None and held[0] == pid:
            return held[1]
        # Opened under the write lock: threads of one process setting up a fresh file
        # take turns instead of racing for SQLite's exclusive lock.
        with self._process_write_lock():
            connection = connect(self._path, self._busy_timeout)
        with self._lock:
            if any(owner != pid for owner, _ in self._connections):
                _INHERITED.extend(c for owner, c in self._connections if owner != pid)
                self._connections = [(o, c) for o, c in self._connections if o == pid]
            self._connections.append((pid, connection))
        self._local.held = (pid, connection)
        return connection

    def close(self) -> None:
        """Close this process's connections (the next operation opens new ones)."""
        pid = os.getpid()
        with self._lock:
            mine = [c for owner, c in self._connections if owner == pid]
            _INHERITED.extend(c for owner, c in self._connections if owner != pid)
            self._connections = []
            self._local = threading.local()
        for connection in mine:
            connection.close()

    def __enter__(self) -> SQLiteChatMemoryRepository:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _process_write_lock(self) -> threading.Lock:
        owner, write_lock = self._write_lock
        if owner != os.getpid():
            write_lock = threading.Lock()
            self._write_lock = (os.getpid(), write_lock)
        return write_lock

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        connection = self._connection()
        with self._process_write_lock(), translate_errors(self._path, action, self._busy_timeout):
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.rollback()
                raise

    def _read(self, conversation_id: str, connection: sqlite3.Connection) -> list[Message]:
        rows = connection.execute(_SELECT, (conversation_id,)).fetchall()
        return _decode(conversation_id, rows, self._path)

    @staticmethod
    def _write(
        connection: sqlite3.Connection, conversation_id: str, rows: list[tuple[str, int, str, str]]
    ) -> None:
        # A message already stored keeps when it was first stored (a window that drops
        # the oldest messages moves the others to new positions); a new one gets now.
        stored: defaultdict[str, deque[int | None]] = defaultdict(deque)
        for _, text, stored_at in connection.execute(_SELECT_TIMED, (conversation_id,)):
            stored[text].append(stored_at)
        now = _now_ms()
        timed = [(*row, stored[row[3]].popleft() if stored[row[3]] else now) for row in rows]
        connection.execute(_DELETE, (conversation_id,))
        connection.executemany(_INSERT, timed)

    # -- blocking faces -----------------------------------------------------------------

    def find_conversation_ids_sync(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""
        connection = self._connection()
        with translate_errors(self._path, "list conversations in", self._busy_timeout):
            return [str(row[0]) for row in connection.execute(_IDS)]

    def find_by_conversation_id_sync(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        check_conversation_id(conversation_id)
        connection = self._connection()
        with translate_errors(self._path, "read", self._busy_timeout):
            return self._read(conversation_id, connection)

    def find_stored_messages_sync(self, conversation_id: str) -> list[StoredMessage]:
        """The messages of ``conversation_id``, oldest first, each with when it was first
        stored (``None`` for messages stored before schema version 2)."""
        check_conversation_id(conversation_id)
        connection = self._connection()
        with translate_errors(self._path, "read", self._busy_timeout):
            rows = connection.execute(_SELECT_TIMED, (conversation_id,)).fetchall()
        return [
            StoredMessage(
                decode_message(conversation_id, position, text, str(self._path)), _moment(at)
            )
            for position, text, at in rows
        ]

    def find_recent_conversations_sync(self, limit: int) -> list[ConversationSummary]:
        """At most ``limit`` conversations, the most recently changed first (those with no
        recorded time last, by id)."""
        connection = self._connection()
        with translate_errors(self._path, "list conversations in", self._busy_timeout):
            rows = connection.execute(_RECENT, (max(limit, 0),)).fetchall()
        return [ConversationSummary(str(cid), int(count), _moment(at)) for cid, count, at in rows]

    def save_all_sync(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` in one transaction (empty: remove)."""
        check_conversation_id(conversation_id)
        rows = _encode(conversation_id, check_messages(messages))
        with self._transaction("write") as connection:
            self._write(connection, conversation_id, rows)

    def delete_by_conversation_id_sync(self, conversation_id: str) -> None:
        """Remove ``conversation_id`` and its messages."""
        check_conversation_id(conversation_id)
        with self._transaction("delete from") as connection:
            connection.execute(_DELETE, (conversation_id,))

    def update_sync(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` in one transaction (the read
        included, so no concurrent writer's change is lost) and return it."""
        check_conversation_id(conversation_id)
        with self._transaction("update") as connection:
            new = check_messages(change(self._read(conversation_id, connection)))
            self._write(connection, conversation_id, _encode(conversation_id, new))
        return new

    # -- async faces (the ChatMemoryRepository protocol) --------------------------------

    async def find_conversation_ids(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""
        return await _in_pool(self.find_conversation_ids_sync)

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        check_conversation_id(conversation_id)
        return await _in_pool(self.find_by_conversation_id_sync, conversation_id)

    async def find_stored_messages(self, conversation_id: str) -> list[StoredMessage]:
        """The messages of ``conversation_id`` with when each was first stored."""
        check_conversation_id(conversation_id)
        return await _in_pool(self.find_stored_messages_sync, conversation_id)

    async def find_recent_conversations(self, limit: int) -> list[ConversationSummary]:
        """At most ``limit`` conversations, the most recently changed first."""
        return await _in_pool(self.find_recent_conversations_sync, limit)

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` in one transaction (empty: remove)."""
        check_conversation_id(conversation_id)
        checked = check_messages(messages)  # a snapshot: the caller may change its list
        await _in_pool(self.save_all_sync, conversation_id, checked)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Remove ``conversation_id`` and its messages."""
        check_conversation_id(conversation_id)
        await _in_pool(self.delete_by_conversation_id_sync, conversation_id)

    async def update(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` atomically and return it
        (``change`` runs on a thread of the repository's pool)."""
        check_conversation_id(conversation_id)
        return await _in_pool(self.update_sync, conversation_id, change)

    def session_log(self) -> SQLiteSessionLog:
        """The session log in the same file (``ostinato logs search`` reads it)."""
        from ostinato_memory._sqlite_session import SQLiteSessionLog

        return SQLiteSessionLog(self._path, busy_timeout=self._busy_timeout)

    def __repr__(self) -> str:
        return f"SQLiteChatMemoryRepository({str(self._path)!r})"
