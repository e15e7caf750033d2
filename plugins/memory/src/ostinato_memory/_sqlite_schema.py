"""Opening an ostinato-memory SQLite database: checked, migrated, never overwritten.

A database is ours when it holds the meta table with ``application = ostinato-memory``;
its ``schema_version`` says which schema it has. A new (empty) file gets the current
schema on first use; an older one is migrated in one transaction (version 2 adds each
message's ``stored_at``, when it was first stored; rows of version 1 have none; version
3 adds the session log: one row per entry, and its FTS5 full-text index). Anything
else — a file that is not SQLite, a corrupt one, another
application's database, a newer schema — raises before a single byte is written. SQLite
errors are turned into the plugin's exceptions here, with what to do about them.

This module only opens, checks and migrates; reading and writing conversations is
:mod:`ostinato_memory._sqlite`'s.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from ostinato_memory._errors import (
    ChatMemoryRepositoryError,
    DatabaseLockedError,
    NewerSchemaError,
    NotAMemoryDatabaseError,
)

__all__ = [
    "APPLICATION",
    "ENTRIES_FTS",
    "ENTRIES_TABLE",
    "MESSAGES_TABLE",
    "META_TABLE",
    "SCHEMA_VERSION",
    "connect",
    "default_sqlite_path",
    "translate_errors",
]

#: The schema version this ostinato-memory writes.
SCHEMA_VERSION: Final = 3
#: The ``application`` value of the meta table: how a database is recognised as ours.
APPLICATION: Final = "ostinato-memory"
#: The meta table: ``key -> value`` (``application``, ``schema_version``).
META_TABLE: Final = "ostinato_memory_meta"
#: One row per message: ``(conversation_id, position, type, message JSON, stored_at)``,
#: ``stored_at`` in milliseconds since the epoch (``NULL`` for rows older than version 2).
MESSAGES_TABLE: Final = "ostinato_memory_messages"
#: One row per session log entry: ``(session_id, position, kind, entry JSON, stored_at)``.
ENTRIES_TABLE: Final = "ostinato_memory_entries"
#: The FTS5 index of the entries' text: ``(body, session_id, position)``.
ENTRIES_FTS: Final = "ostinato_memory_entries_fts"

_SESSION_SCHEMA: Final = (
    f"CREATE TABLE IF NOT EXISTS {ENTRIES_TABLE} ("
    " session_id TEXT NOT NULL,"
    " position INTEGER NOT NULL,"
    " kind TEXT NOT NULL,"
    " entry TEXT NOT NULL,"
    " stored_at INTEGER NOT NULL,"
    " PRIMARY KEY (session_id, position)) WITHOUT ROWID",
    # Words as search_terms() finds them: "_" inside a word, accents kept.
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {ENTRIES_FTS} USING fts5("
    " body, session_id UNINDEXED, position UNINDEXED,"
    " tokenize = \"unicode61 remove_diacritics 0 tokenchars '_'\")",
)

_SCHEMA: Final = (
    f"CREATE TABLE IF NOT EXISTS {META_TABLE} ("
    " key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID",
    f"CREATE TABLE IF NOT EXISTS {MESSAGES_TABLE} ("
    " conversation_id TEXT NOT NULL,"
    " position INTEGER NOT NULL,"
    " type TEXT NOT NULL,"
    " message TEXT NOT NULL,"
    " stored_at INTEGER,"
    " PRIMARY KEY (conversation_id, position)) WITHOUT ROWID",
    *_SESSION_SCHEMA,
)
#: ``(version, statements)``: what brings a database of the version before to it.
_MIGRATIONS: Final = (
    (2, (f"ALTER TABLE {MESSAGES_TABLE} ADD COLUMN stored_at INTEGER",)),
    (3, _SESSION_SCHEMA),
)

_LOCKED = ("SQLITE_BUSY", "SQLITE_LOCKED")
_NOT_OURS = ("SQLITE_NOTADB", "SQLITE_CORRUPT")
_FIX_PATH = "fix: set OSTINATO_MEMORY_SQLITE_PATH (or pass path=) to another file"


def default_sqlite_path() -> Path:
    """``$XDG_DATA_HOME/ostinato/memory.sqlite3``, else ``~/.local/share/ostinato/...``
    (``%LOCALAPPDATA%\\ostinato\\memory.sqlite3`` on Windows)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        # The XDG spec says relative values are invalid and must be ignored.
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "ostinato" / "memory.sqlite3"


def _error_name(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def _translate(
    exc: sqlite3.Error, path: Path, action: str, busy_timeout: float
) -> ChatMemoryRepositoryError:
    name = _error_name(exc)
    where = str(path)
    if name.startswith(_LOCKED) or "database is locked" in str(exc):
        return DatabaseLockedError(
            f"the memory database {where} is locked: could not {action} within the busy "
            f"timeout of {busy_timeout:g}s ({exc}); nothing was changed\n"
            "fix: retry, raise busy_timeout, or find the process holding a long write "
            "transaction on this file",
            path=where,
        )
    if name.startswith(_NOT_OURS):
        return NotAMemoryDatabaseError(
            f"{where} is not a usable ostinato-memory database ({exc}); "
            "it was left untouched\n"
            f"{_FIX_PATH}, or move this file away if it is damaged",
            path=where,
        )
    return ChatMemoryRepositoryError(
        f"SQLite could not {action} the memory database {where}: {exc} "
        f"({name or type(exc).__name__}); nothing was changed\n"
        "fix: check that the path is a writable file in an existing, writable directory",
        path=where,
    )


@contextmanager
def translate_errors(path: Path, action: str, busy_timeout: float) -> Iterator[None]:
    """Turn ``sqlite3.Error`` raised inside into the plugin's exceptions."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _translate(exc, path, action, busy_timeout) from exc


def connect(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A checked connection to the memory database at ``path`` (created on first use).

    The connection is in autocommit mode (callers open their own transactions), waits up
    to ``busy_timeout`` seconds for locks, and runs in WAL mode.

    Raises:
        NotAMemoryDatabaseError: the file is not SQLite, is corrupt, or is another
            application's database.
        NewerSchemaError: the database has a newer schema than this version knows.
        DatabaseLockedError: the database stayed locked past ``busy_timeout``.
        ChatMemoryRepositoryError: the file cannot be opened or created.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ChatMemoryRepositoryError(
            f"cannot create the directory of the memory database {path}: {exc}\n"
            f"{_FIX_PATH} in a writable directory",
            path=str(path),
        ) from exc
    with translate_errors(path, "open", busy_timeout):
        connection = sqlite3.connect(
            str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    try:
        with translate_errors(path, "open", busy_timeout):
            _prepare(connection, path, busy_timeout)
    except BaseException:
        connection.close()
        raise
    return connection


def _tables(connection: sqlite3.Connection) -> set[str]:
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(row[0]) for row in rows}


def _prepare(connection: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
    # Read first: a file that is not SQLite fails here, before anything is written.
    tables = _tables(connection)
    if META_TABLE not in tables:
        if tables:
            raise _foreign(path, f"it holds other tables ({', '.join(sorted(tables))})")
        _create(connection, path)  # an empty file: ours to set up
    if _check(connection, path) < SCHEMA_VERSION:
        _migrate(connection, path)
    _use_wal(connection, busy_timeout)
    # WAL + NORMAL: durable across application crashes, a little faster than FULL.
    connection.execute("PRAGMA synchronous = NORMAL")


def _use_wal(connection: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch the file to WAL mode once; later connections find it already set.

    The switch needs an exclusive lock, and SQLite answers SQLITE_BUSY at once (without
    its busy handler, to avoid a deadlock between readers upgrading their locks) while
    another connection reads the file: so several connections opening a fresh file at
    the same moment retry here, within the busy timeout.
    """
    mode = connection.execute("PRAGMA journal_mode").fetchone()
    if mode is not None and str(mode[0]).lower() == "wal":
        return
    deadline = time.monotonic() + busy_timeout
    delay = 0.001
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
            if not busy or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        else:
            # A file system without WAL support keeps its rollback journal: still correct.
            return


def _create(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("BEGIN IMMEDIATE")
    try:
        tables = _tables(connection)  # another process may have created it meanwhile
        if tables and META_TABLE not in tables:
            raise _foreign(path, f"it holds other tables ({', '.join(sorted(tables))})")
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.executemany(
            f"INSERT OR IGNORE INTO {META_TABLE} (key, value) VALUES (?, ?)",
            [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))],
        )
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.rollback()
        raise


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("BEGIN IMMEDIATE")
    try:
        found = _check(connection, path)  # another process may have migrated meanwhile
        for version, statements in _MIGRATIONS:
            if version <= found:
                continue
            for statement in statements:
                connection.execute(statement)
            connection.execute(
                f"UPDATE {META_TABLE} SET value = ? WHERE key = 'schema_version'", (str(version),)
            )
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.rollback()
        raise


def _check(connection: sqlite3.Connection, path: Path) -> int:
    """The schema version of our database (raises when it is not ours, or newer)."""
    meta = {
        str(key): str(value)
        for key, value in connection.execute(f"SELECT key, value FROM {META_TABLE}")
    }
    if meta.get("application") != APPLICATION:
        raise _foreign(path, f"its {META_TABLE} table names {meta.get('application')!r}")
    raw = meta.get("schema_version", "")
    if not raw.isdigit():
        raise _foreign(path, f"its schema_version is {raw!r}")
    version = int(raw)
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"the memory database {path} has schema version {version}, but this "
            f"ostinato-memory knows versions up to {SCHEMA_VERSION}; it was left untouched\n"
            "fix: upgrade ostinato-memory (pip install -U ostinato-memory), or use another file",
            path=str(path),
        )
    if version < 1 or MESSAGES_TABLE not in _tables(connection):
        raise _foreign(path, f"schema version {version} without the {MESSAGES_TABLE} table")
    return version


def _foreign(path: Path, why: str) -> NotAMemoryDatabaseError:
    return NotAMemoryDatabaseError(
        f"{path} is an SQLite database, but not an ostinato-memory one: {why}; "
        f"it was left untouched\n{_FIX_PATH}",
        path=str(path),
    )
