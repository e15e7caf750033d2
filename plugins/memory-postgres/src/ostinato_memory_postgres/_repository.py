"""``PostgresChatMemoryRepository``: conversations in PostgreSQL, shared by processes and
machines, turn-atomic.

Each write is one transaction that first locks the conversation's row (an upsert into
``ostinato_memory_conversations``), so writers of one conversation take turns — in one
process or many — and a reader sees a conversation before or after a write, never in
between. ``update`` reads, changes and writes under that lock, so no concurrent writer's
turn is lost. Statements go in pipeline mode: a write is one round trip, an ``update``
two. Messages are stored in their JSON form (:func:`ostinato_memory.encode_message`). A
server that cannot be reached, a connection that breaks, or a server that does not answer
within the timeout raises :class:`~ostinato_memory.ChatMemoryStoreUnavailableError`; an
unconfirmed transaction is then rolled back. The URL's password never appears in a repr or an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg_pool import PoolTimeout
from pydantic import SecretStr

from ostinato.messages import Message
from ostinato.redaction import mask_credentials, mask_url
from ostinato.transport import LoopClients
from ostinato_memory import (
    ChatMemoryRepositoryError,
    ChatMemoryStoreUnavailableError,
    ConversationChange,
    ConversationSummary,
    RemoteStoreSyncFaces,
    check_conversation_id,
    check_messages,
    decode_message,
    encode_message,
)
from ostinato_memory_postgres._deadline import AnswerDeadline, answer_within
from ostinato_memory_postgres._pool import LoopPool
from ostinato_memory_postgres._schema import CONVERSATIONS_TABLE, MESSAGES_TABLE, ensure_schema

if TYPE_CHECKING:
    from ostinato_memory_postgres._session import PostgresSessionLog

__all__ = ["PostgresChatMemoryRepository"]

T = TypeVar("T")
Connection = psycopg.AsyncConnection[Any]

_LOCK = (
    f"INSERT INTO {CONVERSATIONS_TABLE} (conversation_id, message_count) VALUES (%s, 0)"
    " ON CONFLICT (conversation_id) DO UPDATE SET updated_at = clock_timestamp()"
)
_SELECT = (
    f"SELECT position, message FROM {MESSAGES_TABLE} WHERE conversation_id = %s ORDER BY position"
)
_DELETE_MESSAGES = f"DELETE FROM {MESSAGES_TABLE} WHERE conversation_id = %s"
_DELETE_CONVERSATION = f"DELETE FROM {CONVERSATIONS_TABLE} WHERE conversation_id = %s"
_INSERT = (
    f"INSERT INTO {MESSAGES_TABLE} (conversation_id, position, type, message)"
    " VALUES (%s, %s, %s, %s)"
)
_COUNT = (
    f"UPDATE {CONVERSATIONS_TABLE} SET message_count = %s, updated_at = clock_timestamp()"
    " WHERE conversation_id = %s"
)
_IDS = f'SELECT conversation_id FROM {CONVERSATIONS_TABLE} ORDER BY conversation_id COLLATE "C"'
_RECENT = (
    f"SELECT conversation_id, message_count, updated_at FROM {CONVERSATIONS_TABLE}"
    " ORDER BY updated_at DESC, conversation_id LIMIT %s"
)


class PostgresChatMemoryRepository(RemoteStoreSyncFaces):
    """A :class:`~ostinato.memory.ChatMemoryRepository` (and
    :class:`~ostinato_memory.UpdatableChatMemoryRepository`,
    :class:`~ostinato_memory.RecentConversationsRepository`) in PostgreSQL.

    Args:
        url: the database (``postgresql://user:password@host:5432/db``), a ``str`` or a
            ``SecretStr``.
        pool_min_size: connections kept open per event loop (default 1).
        pool_max_size: connections at most per event loop (default 10).
        timeout: seconds an operation waits for a connection, and then at most as long
            for the server to answer its statements (default 10); past either, it raises
            :class:`~ostinato_memory.ChatMemoryStoreUnavailableError`.

    Nothing connects until the first operation, which also creates or migrates the schema
    (:data:`~ostinato_memory_postgres.SCHEMA_VERSION`). Each method has a blocking twin
    with the suffix ``_sync``. Close with :meth:`aclose` (or :meth:`close`).
    """

    __slots__ = ("_pools", "_schema_ready", "_settings", "_url")

    def __init__(
        self,
        url: str | SecretStr,
        *,
        pool_min_size: int = 1,
        pool_max_size: int = 10,
        timeout: float = 10.0,
    ) -> None:
        secret = url.get_secret_value() if isinstance(url, SecretStr) else url
        if not isinstance(secret, str) or not secret.strip():
            raise ValueError(
                "PostgresChatMemoryRepository needs a database URL "
                "(postgresql://user:password@host:5432/db)"
            )
        if pool_max_size < 1 or pool_min_size < 0 or timeout <= 0:
            raise ValueError(
                f"pool_min_size must be >= 0, pool_max_size >= 1 and timeout > 0; got "
                f"{pool_min_size}, {pool_max_size}, {timeout}"
            )
        self._url = secret
        self._settings = (pool_min_size, pool_max_size, float(timeout))
        self._schema_ready = False
        self._pools: LoopClients[LoopPool] = LoopClients(self._new_pool)

    def _new_pool(self) -> LoopPool:
        low, high, timeout = self._settings
        return LoopPool(self._url, min_size=low, max_size=high, timeout=timeout)

    @property
    def url(self) -> str:
        """The database URL, password masked."""
        return mask_url(self._url)

    async def _run(self, action: str, work: Callable[[Connection], Awaitable[T]]) -> T:
        timeout = self._settings[2]
        deadline = AnswerDeadline()
        pool = self._pools.get()
        try:
            async with pool.connection() as connection:
                with answer_within(connection, timeout) as deadline:
                    if not self._schema_ready:
                        await ensure_schema(connection, self.url)
                        self._schema_ready = True
                    return await work(connection)
        except psycopg.OperationalError as exc:
            if deadline.expired:
                raise ChatMemoryStoreUnavailableError(
                    f"the PostgreSQL memory store {self.url} did not answer within "
                    f"{timeout:g} s while trying to {action}; the server rolls back a "
                    "transaction it had not committed yet\n"
                    "fix: check that the server runs and answers, or raise "
                    "OSTINATO_MEMORY_POSTGRES_TIMEOUT (the repository's timeout=) "
                    f"above {timeout:g}",
                    path=self.url,
                ) from None
            reason = str(exc) or type(exc).__name__
            if isinstance(exc, PoolTimeout) and pool.last_connect_error:
                reason = f"{pool.last_connect_error} (no connection within {timeout:g} s)"
            raise ChatMemoryStoreUnavailableError(
                f"the PostgreSQL memory store {self.url} could not {action}: "
                f"{mask_credentials(reason)}; nothing was changed\n"
                "fix: check that the server runs and is reachable at "
                "OSTINATO_MEMORY_POSTGRES_URL, or raise OSTINATO_MEMORY_POSTGRES_TIMEOUT",
                path=self.url,
            ) from None
        except psycopg.Error as exc:
            raise ChatMemoryRepositoryError(
                f"the PostgreSQL memory store {self.url} could not {action}: "
                f"{mask_credentials(str(exc))} ({type(exc).__name__}); nothing was changed\n"
                "fix: check the role's rights on the database and its ostinato_memory_* tables",
                path=self.url,
            ) from None

    async def _read(self, connection: Connection, conversation_id: str) -> list[Message]:
        cursor = await connection.execute(_SELECT, (conversation_id,))
        return [
            decode_message(conversation_id, int(position), str(text), self.url)
            for position, text in await cursor.fetchall()
        ]

    @staticmethod
    async def _write(connection: Connection, conversation_id: str, messages: list[Message]) -> None:
        rows = [
            (
                conversation_id,
                position,
                m.message_type.value,
                encode_message(conversation_id, position, m),
            )
            for position, m in enumerate(messages)
        ]
        await connection.execute(_DELETE_MESSAGES, (conversation_id,))
        if not rows:
            await connection.execute(_DELETE_CONVERSATION, (conversation_id,))
            return
        async with connection.cursor() as cursor:
            await cursor.executemany(_INSERT, rows)
        await connection.execute(_COUNT, (len(rows), conversation_id))

    # -- the ChatMemoryRepository protocol ------------------------------------------------

    async def find_conversation_ids(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""

        async def work(connection: Connection) -> list[str]:
            cursor = await connection.execute(_IDS)
            return [str(row[0]) for row in await cursor.fetchall()]

        return await self._run("list conversations", work)

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        check_conversation_id(conversation_id)

        async def work(connection: Connection) -> list[Message]:
            return await self._read(connection, conversation_id)

        return await self._run("read", work)

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` in one transaction (empty: remove)."""
        check_conversation_id(conversation_id)
        checked = check_messages(messages)
        for position, message in enumerate(checked):  # fail before touching the store
            encode_message(conversation_id, position, message)

        async def work(connection: Connection) -> None:
            async with connection.pipeline(), connection.transaction():
                await connection.execute(_LOCK, (conversation_id,))
                await self._write(connection, conversation_id, checked)

        await self._run("write", work)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Remove ``conversation_id`` and its messages."""
        check_conversation_id(conversation_id)

        async def work(connection: Connection) -> None:
            async with connection.pipeline(), connection.transaction():
                await connection.execute(_DELETE_CONVERSATION, (conversation_id,))
                await connection.execute(_DELETE_MESSAGES, (conversation_id,))

        await self._run("delete from", work)

    async def update(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` in one transaction that holds
        the conversation's lock from the read to the write, and return it."""
        check_conversation_id(conversation_id)

        async def work(connection: Connection) -> list[Message]:
            async with connection.pipeline(), connection.transaction():
                await connection.execute(_LOCK, (conversation_id,))
                new = check_messages(change(await self._read(connection, conversation_id)))
                await self._write(connection, conversation_id, new)
                return new

        return await self._run("update", work)

    async def find_recent_conversations(self, limit: int) -> list[ConversationSummary]:
        """At most ``limit`` conversations, the most recently changed first."""

        async def work(connection: Connection) -> list[ConversationSummary]:
            cursor = await connection.execute(_RECENT, (limit,))
            return [
                ConversationSummary(str(cid), int(count), updated)
                for cid, count, updated in await cursor.fetchall()
            ]

        return await self._run("list conversations", work)

    # -- closing (the blocking faces come from RemoteStoreSyncFaces) ---------------------

    async def aclose(self) -> None:
        """Close every pool (the next operation opens a new one)."""
        await self._pools.aclose()

    def session_log(self) -> PostgresSessionLog:
        """The session log in the same database (``ostinato logs search`` reads it)."""
        from ostinato_memory_postgres._session import PostgresSessionLog

        low, high, timeout = self._settings
        return PostgresSessionLog(self._url, pool_min_size=low, pool_max_size=high, timeout=timeout)

    def __repr__(self) -> str:
        return f"PostgresChatMemoryRepository({self.url!r})"
