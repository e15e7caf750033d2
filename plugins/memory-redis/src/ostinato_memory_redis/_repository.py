"""``RedisChatMemoryRepository``: conversations in Redis, shared by processes and machines,
turn-atomic, optionally expiring.

Key layout (``P`` is the key prefix, ``ostinato:memory:`` by default):

* ``P conversation:<id>`` — a list: the conversation's messages, oldest first, each in its
  JSON form (:func:`ostinato_memory.encode_message`).
* ``P conversations`` — a sorted set: every conversation id, scored by the time of its
  last change (milliseconds since the epoch); ``ostinato logs`` lists it newest first.

A write is one ``MULTI``/``EXEC`` transaction (the list replaced whole, its expiry set,
the index updated), so a reader sees a conversation before or after it, never between.
``update`` watches the list (``WATCH``), reads it, and retries when another writer
changed it first, so no concurrent writer's turn is lost. With a TTL each write sets the
list's expiry; an expired conversation's index entry is dropped when a listing meets it.
A server that cannot be reached, or a connection that breaks, raises
:class:`~ostinato_memory.ChatMemoryStoreUnavailableError`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

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

if TYPE_CHECKING:
    from ostinato_memory_redis._session import RedisSessionLog

__all__ = ["DEFAULT_KEY_PREFIX", "RedisChatMemoryRepository"]

T = TypeVar("T")

#: The key prefix when none is given.
DEFAULT_KEY_PREFIX: Final = "ostinato:memory:"
#: How many times ``update`` retries after another writer changed the conversation first.
MAX_UPDATE_ATTEMPTS: Final = 1000


class _LoopClient:
    """One ``redis.asyncio.Redis`` (and its connection pool) for one event loop."""

    __slots__ = ("_closed", "client")

    def __init__(self, url: str, timeout: float, max_connections: int) -> None:
        self.client: aioredis.Redis = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            max_connections=max_connections,
            # One immediate retry replaces a connection the server dropped while idle.
            retry=Retry(NoBackoff(), 1),
            retry_on_error=[RedisConnectionError],
            health_check_interval=30,
        )
        self._closed = False

    @property
    def is_closed(self) -> bool:
        return self._closed

    async def aclose(self) -> None:
        self._closed = True
        await self.client.aclose()


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class RedisChatMemoryRepository(RemoteStoreSyncFaces):
    """A :class:`~ostinato.memory.ChatMemoryRepository` (and
    :class:`~ostinato_memory.UpdatableChatMemoryRepository`,
    :class:`~ostinato_memory.RecentConversationsRepository`) in Redis.

    Args:
        url: the server (``redis://:password@host:6379/0``), a ``str`` or a ``SecretStr``.
        key_prefix: the start of every key (default ``ostinato:memory:``).
        ttl: seconds a conversation lives after its last change (default ``None``: forever).
        timeout: seconds to connect or wait for a reply (default 5).
        max_connections: connections at most per event loop (default 50).

    Nothing connects until the first operation. Each method has a blocking twin with the
    suffix ``_sync``. Close with :meth:`aclose` (or :meth:`close`).
    """

    __slots__ = ("_clients", "_index", "_options", "_prefix", "_ttl", "_url")

    def __init__(
        self,
        url: str | SecretStr,
        *,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        ttl: int | None = None,
        timeout: float = 5.0,
        max_connections: int = 50,
    ) -> None:
        secret = url.get_secret_value() if isinstance(url, SecretStr) else url
        if not isinstance(secret, str) or not secret.strip():
            raise ValueError("RedisChatMemoryRepository needs a URL (redis://host:6379/0)")
        if ttl is not None and ttl <= 0:
            raise ValueError(f"ttl must be a positive number of seconds or None, got {ttl!r}")
        if timeout <= 0 or max_connections < 1:
            raise ValueError(
                f"timeout must be > 0 and max_connections >= 1; got {timeout}, {max_connections}"
            )
        self._url = secret
        self._prefix = key_prefix
        self._index = f"{key_prefix}conversations"
        self._ttl = ttl
        self._options = (float(timeout), max_connections)
        self._clients: LoopClients[_LoopClient] = LoopClients(
            lambda: _LoopClient(self._url, *self._options)
        )

    @property
    def url(self) -> str:
        """The server URL, password masked."""
        return mask_url(self._url)

    @property
    def ttl(self) -> int | None:
        """Seconds a conversation lives after its last change (``None``: forever)."""
        return self._ttl

    def key(self, conversation_id: str) -> str:
        """The key of the list holding ``conversation_id``'s messages."""
        return f"{self._prefix}conversation:{conversation_id}"

    async def _run(self, action: str, work: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
        try:
            return await work(self._clients.get().client)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise ChatMemoryStoreUnavailableError(
                f"the Redis memory store {self.url} could not {action}: "
                f"{mask_credentials(str(exc)) or type(exc).__name__}; nothing was changed\n"
                "fix: check that the server runs and is reachable at "
                "OSTINATO_MEMORY_REDIS_URL, or raise OSTINATO_MEMORY_REDIS_TIMEOUT",
                path=self.url,
            ) from None
        except RedisError as exc:
            raise ChatMemoryRepositoryError(
                f"the Redis memory store {self.url} could not {action}: "
                f"{mask_credentials(str(exc))} ({type(exc).__name__}); nothing was changed\n"
                "fix: check the user's rights (ACL) on the keys under the key prefix",
                path=self.url,
            ) from None

    def _decode(self, conversation_id: str, rows: Sequence[bytes | str]) -> list[Message]:
        return [
            decode_message(conversation_id, position, _text(row), self.url)
            for position, row in enumerate(rows)
        ]

    def _queue_write(self, pipe: Any, conversation_id: str, encoded: list[str]) -> None:
        key = self.key(conversation_id)
        pipe.delete(key)
        if not encoded:
            pipe.zrem(self._index, conversation_id)
            return
        pipe.rpush(key, *encoded)
        if self._ttl is not None:
            pipe.expire(key, self._ttl)
        pipe.zadd(self._index, {conversation_id: _now_ms()})

    # -- the ChatMemoryRepository protocol ------------------------------------------------

    async def _live_ids(self, client: aioredis.Redis, ids: Sequence[bytes | str]) -> list[str]:
        """``ids`` whose list still exists; the index entries of expired ones are dropped."""
        if not ids:
            return []
        names = [_text(i) for i in ids]
        async with client.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.exists(self.key(name))
            exists = await pipe.execute()
        gone = [name for name, there in zip(names, exists) if not there]
        if gone:
            await client.zrem(self._index, *gone)
        return [name for name, there in zip(names, exists) if there]

    async def find_conversation_ids(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""

        async def work(client: aioredis.Redis) -> list[str]:
            ids = cast("list[bytes]", await client.zrange(self._index, 0, -1))
            return sorted(await self._live_ids(client, ids))

        return await self._run("list conversations", work)

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        check_conversation_id(conversation_id)

        async def work(client: aioredis.Redis) -> list[Message]:
            rows = await client.lrange(self.key(conversation_id), 0, -1)
            return self._decode(conversation_id, rows)

        return await self._run("read", work)

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` in one transaction (empty: remove)."""
        check_conversation_id(conversation_id)
        encoded = [
            encode_message(conversation_id, position, message)
            for position, message in enumerate(check_messages(messages))
        ]

        async def work(client: aioredis.Redis) -> None:
            async with client.pipeline(transaction=True) as pipe:
                self._queue_write(pipe, conversation_id, encoded)
                await pipe.execute()

        await self._run("write", work)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Remove ``conversation_id`` and its messages."""
        check_conversation_id(conversation_id)

        async def work(client: aioredis.Redis) -> None:
            async with client.pipeline(transaction=True) as pipe:
                self._queue_write(pipe, conversation_id, [])
                await pipe.execute()

        await self._run("delete from", work)

    async def update(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` atomically and return it: the
        write applies only if nobody changed the conversation since the read (else the
        read, the change and the write run again)."""
        check_conversation_id(conversation_id)
        key = self.key(conversation_id)

        async def work(client: aioredis.Redis) -> list[Message]:
            async with client.pipeline(transaction=True) as pipe:
                for _ in range(MAX_UPDATE_ATTEMPTS):
                    try:
                        await pipe.watch(key)
                        stored = self._decode(conversation_id, await pipe.lrange(key, 0, -1))
                        new = check_messages(change(stored))
                        encoded = [
                            encode_message(conversation_id, position, message)
                            for position, message in enumerate(new)
                        ]
                        pipe.multi()  # type: ignore[no-untyped-call]
                        self._queue_write(pipe, conversation_id, encoded)
                        await pipe.execute()
                        return new
                    except WatchError:
                        continue  # another writer changed it first: read again
                    finally:
                        await pipe.reset()  # type: ignore[no-untyped-call]
            raise ChatMemoryRepositoryError(
                f"conversation {conversation_id!r} in the Redis memory store {self.url} "
                f"changed under every one of {MAX_UPDATE_ATTEMPTS} attempts to update it; "
                "nothing was changed\nfix: retry later (so many writers on one conversation "
                "at once is unusual)",
                path=self.url,
            )

        return await self._run("update", work)

    async def find_recent_conversations(self, limit: int) -> list[ConversationSummary]:
        """At most ``limit`` conversations, the most recently changed first."""

        async def work(client: aioredis.Redis) -> list[ConversationSummary]:
            found: list[tuple[bytes, float]] = await client.zrevrange(  # type: ignore[assignment]
                self._index, 0, max(limit, 1) - 1, withscores=True
            )
            live = set(await self._live_ids(client, [name for name, _ in found]))
            scored = [(n.decode("utf-8"), s) for n, s in found if n.decode("utf-8") in live]
            async with client.pipeline(transaction=False) as pipe:
                for name, _ in scored:
                    pipe.llen(self.key(name))
                counts = await pipe.execute()
            return [
                ConversationSummary(name, int(count), datetime.fromtimestamp(score / 1000, UTC))
                for (name, score), count in zip(scored, counts)
            ][:limit]

        return await self._run("list conversations", work)

    # -- closing (the blocking faces come from RemoteStoreSyncFaces) ---------------------

    async def aclose(self) -> None:
        """Close every connection pool (the next operation opens a new one)."""
        await self._clients.aclose()

    def session_log(self) -> RedisSessionLog:
        """The session log on the same server and key prefix (``ostinato logs search``)."""
        from ostinato_memory_redis._session import RedisSessionLog

        timeout, connections = self._options
        return RedisSessionLog(
            self._url, key_prefix=self._prefix, timeout=timeout, max_connections=connections
        )

    def __repr__(self) -> str:
        return f"RedisChatMemoryRepository({self.url!r}, key_prefix={self._prefix!r})"
