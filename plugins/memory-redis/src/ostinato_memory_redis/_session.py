"""``RedisSessionLog``: session logs in Redis.

Key layout (``P`` is the key prefix, ``ostinato:memory:`` by default):

* ``P session:<id>`` — a list: the session's own entries, oldest first, each in its JSON
  form (:func:`ostinato_memory.encode_entry`); an entry's position is its index, plus
  the fork position for a branch.
* ``P session-fork:<id>`` — a branch's ``[parent, fork position]`` (JSON); absent for a
  root session.
* ``P sessions`` — a sorted set of every session id.

An append is one ``MULTI``/``EXEC`` transaction (``RPUSH`` of all its entries, the fork
read, the index updated), so appends never interleave and positions never repeat. A
fork watches the branch's list (``WATCH``) and writes only if it is still empty. Search
needs no Redis module: it reads the session's entries and matches words in the client
(:func:`ostinato_memory.term_score`), which suits logs of thousands of entries; use the
PostgreSQL or SQLite log for full-text search over far more. Session logs never expire.
"""

from __future__ import annotations

import json
from typing import Any, Final

import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.exceptions import WatchError

from ostinato.memory import SessionEntry
from ostinato_memory import (
    BranchingSessionLog,
    check_conversation_id,
    decode_entry,
    encode_entry,
    term_score,
)
from ostinato_memory_redis._repository import DEFAULT_KEY_PREFIX, RedisChatMemoryRepository

__all__ = ["RedisSessionLog"]

#: How many times a fork retries after another writer changed the branch first.
MAX_FORK_ATTEMPTS: Final = 100


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class RedisSessionLog(BranchingSessionLog):
    """A :class:`~ostinato.memory.SessionLog` in Redis.

    Args:
        url: the server, as for :class:`~ostinato_memory_redis.RedisChatMemoryRepository`.
        key_prefix: the start of every key (default ``ostinato:memory:``; the
            conversations under it are untouched).
        timeout, max_connections: as for the repository.

    Blocking faces (``append_sync``...) come with the protocol's mixin. Close with
    :meth:`aclose`.
    """

    __slots__ = ("_prefix", "_store")

    def __init__(
        self,
        url: str | SecretStr,
        *,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout: float = 5.0,
        max_connections: int = 50,
    ) -> None:
        self._store = RedisChatMemoryRepository(
            url, key_prefix=key_prefix, timeout=timeout, max_connections=max_connections
        )
        self._prefix = key_prefix

    @property
    def url(self) -> str:
        """The server URL, password masked."""
        return self._store.url

    async def aclose(self) -> None:
        """Close every connection pool."""
        await self._store.aclose()

    def _list(self, session_id: str) -> str:
        return f"{self._prefix}session:{session_id}"

    def _fork_key(self, session_id: str) -> str:
        return f"{self._prefix}session-fork:{session_id}"

    @property
    def _index(self) -> str:
        return f"{self._prefix}sessions"

    @staticmethod
    def _base(fork: bytes | str | None) -> int:
        return 0 if fork is None else int(json.loads(_text(fork))[1])

    async def _entries(self, client: aioredis.Redis, session_id: str) -> list[SessionEntry]:
        async with client.pipeline(transaction=True) as pipe:
            pipe.get(self._fork_key(session_id))
            pipe.lrange(self._list(session_id), 0, -1)
            fork, rows = await pipe.execute()
        base = self._base(fork)
        return [
            decode_entry(session_id, base + i, _text(row), self.url) for i, row in enumerate(rows)
        ]

    async def _own(self, session_id: str, start: int) -> list[SessionEntry]:
        async def work(client: aioredis.Redis) -> list[SessionEntry]:
            return [e for e in await self._entries(client, session_id) if e.position >= start]

        return await self._store._run("read", work)

    async def _append_own(self, session_id: str, entries: list[SessionEntry]) -> list[SessionEntry]:
        encoded = [encode_entry(e) for e in entries]

        async def work(client: aioredis.Redis) -> list[SessionEntry]:
            async with client.pipeline(transaction=True) as pipe:
                pipe.rpush(self._list(session_id), *encoded)
                pipe.get(self._fork_key(session_id))
                pipe.zadd(self._index, {session_id: 0})
                length, fork, _ = await pipe.execute()
            start = self._base(fork) + int(length) - len(entries)
            return [e.at(start + i) for i, e in enumerate(entries)]

        return await self._store._run("append to", work)

    async def _create_branch(self, branch_id: str, marker: SessionEntry) -> bool:
        assert marker.parent is not None
        key = self._list(branch_id)

        async def work(client: aioredis.Redis) -> bool:
            async with client.pipeline(transaction=True) as pipe:
                for _ in range(MAX_FORK_ATTEMPTS):
                    try:
                        await pipe.watch(key)
                        if await pipe.llen(key):
                            return False
                        pipe.multi()  # type: ignore[no-untyped-call]
                        pipe.set(self._fork_key(branch_id), json.dumps(list(marker.parent or ())))
                        pipe.rpush(key, encode_entry(marker))
                        pipe.zadd(self._index, {branch_id: 0})
                        await pipe.execute()
                        return True
                    except WatchError:
                        continue
                    finally:
                        await pipe.reset()  # type: ignore[no-untyped-call]
            return False

        return await self._store._run("fork", work)

    async def _parent(self, session_id: str) -> tuple[str, int] | None:
        async def work(client: aioredis.Redis) -> tuple[str, int] | None:
            fork = await client.get(self._fork_key(session_id))
            if fork is None:
                return None
            parent, at = json.loads(_text(fork))
            return str(parent), int(at)

        return await self._store._run("read", work)

    async def _search_own(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        async def work(client: aioredis.Redis) -> list[tuple[SessionEntry, float]]:
            entries = await self._entries(client, session_id)
            scored = [
                (e, term_score(terms, e.text()))
                for e in entries
                if below is None or e.position < below
            ]
            found = [(e, s) for e, s in scored if s > 0]
            found.sort(key=lambda pair: (-pair[1], -pair[0].position))
            return found[:limit]

        return await self._store._run("search", work)

    async def session_ids(self) -> list[str]:
        """Every session id holding an entry, sorted."""

        async def work(client: aioredis.Redis) -> list[str]:
            ids: list[Any] = await client.zrange(self._index, 0, -1)
            return sorted(_text(i) for i in ids)

        return await self._store._run("list sessions", work)

    async def delete(self, session_id: str) -> None:
        """Remove ``session_id``'s own entries."""
        check_conversation_id(session_id)

        async def work(client: aioredis.Redis) -> None:
            async with client.pipeline(transaction=True) as pipe:
                pipe.delete(self._list(session_id), self._fork_key(session_id))
                pipe.zrem(self._index, session_id)
                await pipe.execute()

        await self._store._run("delete from", work)

    def __repr__(self) -> str:
        return f"RedisSessionLog({self.url!r}, key_prefix={self._prefix!r})"
