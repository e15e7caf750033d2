"""The PostgreSQL schema of ostinato-memory: versioned, created or migrated on first use.

A database is ours when ``ostinato_memory_meta`` holds ``application = ostinato-memory``;
its ``schema_version`` says which of :data:`MIGRATIONS` ran. A database without our
tables gets every migration; one with an older version gets the missing ones; one with a
newer version is refused untouched. Migrations run in one transaction under an advisory
lock, so processes starting together migrate once.

Version 1: the meta table and one row per message (as the SQLite file).
Version 2: one row per conversation (when it last changed, how many messages): the row
writers lock to change a conversation one at a time, and what ``ostinato logs`` lists.
Version 3: the session log — one row per session (the row appenders lock) and one per
entry, with a generated ``tsvector`` of its text (``simple`` configuration: words as
written, lower-cased) under a GIN index for full-text search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato_memory import NewerSchemaError, NotAMemoryDatabaseError

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "APPLICATION",
    "CONVERSATIONS_TABLE",
    "ENTRIES_TABLE",
    "MESSAGES_TABLE",
    "META_TABLE",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SESSIONS_TABLE",
    "ensure_schema",
]

APPLICATION: Final = "ostinato-memory"
META_TABLE: Final = "ostinato_memory_meta"
MESSAGES_TABLE: Final = "ostinato_memory_messages"
CONVERSATIONS_TABLE: Final = "ostinato_memory_conversations"
SESSIONS_TABLE: Final = "ostinato_memory_sessions"
ENTRIES_TABLE: Final = "ostinato_memory_entries"
#: A constant key for ``pg_advisory_xact_lock``: one migration at a time per database.
_LOCK_KEY: Final = 0x05_71_4A_70

#: ``(version, statements)``, applied in order to reach each version.
MIGRATIONS: Final[tuple[tuple[int, tuple[str, ...]], ...]] = (
    (
        1,
        (
            f"CREATE TABLE {META_TABLE} (key text PRIMARY KEY, value text NOT NULL)",
            f"CREATE TABLE {MESSAGES_TABLE} ("
            " conversation_id text NOT NULL,"
            " position integer NOT NULL,"
            " type text NOT NULL,"
            " message text NOT NULL,"
            " PRIMARY KEY (conversation_id, position))",
            f"INSERT INTO {META_TABLE} (key, value) VALUES"
            f" ('application', '{APPLICATION}'), ('schema_version', '1')",
        ),
    ),
    (
        2,
        (
            f"CREATE TABLE {CONVERSATIONS_TABLE} ("
            " conversation_id text PRIMARY KEY,"
            " message_count integer NOT NULL,"
            " updated_at timestamptz NOT NULL DEFAULT clock_timestamp())",
            f"CREATE INDEX {CONVERSATIONS_TABLE}_updated ON {CONVERSATIONS_TABLE} (updated_at)",
            f"INSERT INTO {CONVERSATIONS_TABLE} (conversation_id, message_count)"
            f" SELECT conversation_id, count(*) FROM {MESSAGES_TABLE} GROUP BY conversation_id",
        ),
    ),
    (
        3,
        (
            f"CREATE TABLE {SESSIONS_TABLE} ("
            " session_id text PRIMARY KEY,"
            " updated_at timestamptz NOT NULL DEFAULT clock_timestamp())",
            f"CREATE TABLE {ENTRIES_TABLE} ("
            " session_id text NOT NULL,"
            " position integer NOT NULL,"
            " kind text NOT NULL,"
            " entry text NOT NULL,"
            " body text NOT NULL,"
            " search tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,"
            " stored_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
            " PRIMARY KEY (session_id, position))",
            f"CREATE INDEX {ENTRIES_TABLE}_search ON {ENTRIES_TABLE} USING gin (search)",
        ),
    ),
)

#: The schema version this plugin writes.
SCHEMA_VERSION: Final = MIGRATIONS[-1][0]


async def _tables(connection: psycopg.AsyncConnection[tuple[object, ...]]) -> set[str]:
    cursor = await connection.execute(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_name LIKE 'ostinato\\_memory\\_%%'"
    )
    return {str(row[0]) for row in await cursor.fetchall()}


async def _version(connection: psycopg.AsyncConnection[tuple[object, ...]], where: str) -> int:
    tables = await _tables(connection)
    if META_TABLE not in tables:
        if tables:
            raise NotAMemoryDatabaseError(
                f"{where} holds {', '.join(sorted(tables))} but no {META_TABLE} table; "
                "it was left untouched\n"
                "fix: point OSTINATO_MEMORY_POSTGRES_URL at another database, or drop "
                "those tables",
                path=where,
            )
        return 0
    cursor = await connection.execute(f"SELECT key, value FROM {META_TABLE}")
    meta = {str(key): str(value) for key, value in await cursor.fetchall()}
    raw = meta.get("schema_version", "")
    if meta.get("application") != APPLICATION or not raw.isdigit():
        raise NotAMemoryDatabaseError(
            f"{where}: its {META_TABLE} table is not ostinato-memory's "
            f"(application={meta.get('application')!r}, schema_version={raw!r}); "
            "it was left untouched\n"
            "fix: point OSTINATO_MEMORY_POSTGRES_URL at another database",
            path=where,
        )
    return int(raw)


async def ensure_schema(connection: psycopg.AsyncConnection[tuple[object, ...]], where: str) -> int:
    """Bring the database ``connection`` is on to :data:`SCHEMA_VERSION`; return the
    version found before (0: none). ``where`` names the database in errors.

    Raises:
        NewerSchemaError: the database has a newer schema (left untouched).
        NotAMemoryDatabaseError: it holds tables of ours that are not ours.
    """
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        found = await _version(connection, where)
        if found > SCHEMA_VERSION:
            raise NewerSchemaError(
                f"the memory database {where} has schema version {found}, but this "
                f"ostinato-memory-postgres knows versions up to {SCHEMA_VERSION}; "
                "it was left untouched\n"
                "fix: upgrade ostinato-memory-postgres, or use another database",
                path=where,
            )
        for version, statements in MIGRATIONS:
            if version <= found:
                continue
            for statement in statements:
                await connection.execute(statement)
            await connection.execute(
                f"UPDATE {META_TABLE} SET value = %s WHERE key = 'schema_version'",
                (str(version),),
            )
    return found
