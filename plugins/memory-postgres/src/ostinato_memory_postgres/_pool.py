"""One psycopg connection pool per event loop, opened on first use.

An async pool belongs to the loop it runs on; ostinato's blocking faces run on its
private loop while async callers bring their own, so the repository keeps one pool per
loop (:class:`~ostinato.transport.LoopClients`). A connection taken from the pool whose
socket has something to read while idle (the server said goodbye, or closed it) is
checked with a round trip and replaced if dead, so one the server dropped does not fail
the next operation; a healthy idle connection costs no round trip. That check, like
every statement of the repository, waits at most the pool's timeout for the server to
answer (:func:`~ostinato_memory_postgres._deadline.answer_within`).

A pool opens on its first use and waits (at most the timeout) for its connections, so no
connection attempt is still under way when a loop ends: psycopg's pool retries an
attempt that was cancelled, and ``asyncio.run`` would wait for it forever at exit. A pool
that cannot open is closed at once (nothing keeps retrying behind the error), and the
next use opens a new one. psycopg's pool logs each failed attempt; for these pools the
attempts are not logged, the last one's reason goes into the repository's error instead
(:attr:`LoopPool.last_connect_error`).

While the server is down, psycopg's pool retries in the background with a delay that
doubles each time (up to minutes), so a pool would go on failing for a while after the
server is back. A use that finds no connection within the timeout while attempts have been
failing replaces the pool with a fresh one, which tries the server at once. This module
imports psycopg; only the repository imports it.
"""

from __future__ import annotations

import itertools
import logging
import select
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from ostinato_memory_postgres._deadline import answer_within

__all__ = ["LoopPool", "check_if_suspect"]

_NAME = "ostinato-memory-postgres"
_numbers = itertools.count(1)
#: Each live pool by its name, for the filter of psycopg's log.
_pools: weakref.WeakValueDictionary[str, LoopPool] = weakref.WeakValueDictionary()


class _ConnectFailures(logging.Filter):
    """Takes psycopg's "error connecting in <pool>" records of these pools out of the log,
    keeping each one's reason on its pool."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (isinstance(args, tuple) and len(args) == 2 and isinstance(args[0], str)):
            return True
        pool = _pools.get(args[0]) if str(record.msg).startswith("error connecting in") else None
        if pool is None:
            return True
        lines = [line.strip() for line in str(args[1]).splitlines() if line.strip()]
        pool.last_connect_error = "; ".join(lines) or None
        return False


_FILTER = _ConnectFailures()
logging.getLogger("psycopg.pool").addFilter(_FILTER)


async def check_if_suspect(connection: AsyncConnection[Any], seconds: float = 10.0) -> None:
    """Check ``connection`` with a round trip only if its idle socket is readable (an idle
    connection has nothing to read unless the server ended it); raise if it is dead or
    the server does not answer within ``seconds``."""
    if _readable(connection.pgconn.socket):
        with answer_within(connection, seconds):
            await AsyncConnectionPool.check_connection(connection)


def _checker(timeout: float) -> Callable[[AsyncConnection[Any]], Awaitable[None]]:
    async def check(connection: AsyncConnection[Any]) -> None:
        await check_if_suspect(connection, timeout)

    return check


def _readable(fd: int) -> bool:
    if hasattr(select, "poll"):  # poll takes any descriptor; select() only those < 1024
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


class LoopPool:
    """A pool of autocommit connections, opened lazily on the running loop.

    Attributes:
        pool: psycopg's pool.
        last_connect_error: why the latest failed connection attempt failed (``None``
            when none failed since the last success).
    """

    __slots__ = (
        "__weakref__",
        "_closed",
        "_new_pool",
        "_opened",
        "_timeout",
        "last_connect_error",
        "pool",
    )

    def __init__(self, url: str, *, min_size: int, max_size: int, timeout: float) -> None:
        def new_pool() -> AsyncConnectionPool[AsyncConnection[Any]]:
            name = f"{_NAME}-{next(_numbers)}"
            _pools[name] = self
            return AsyncConnectionPool(
                url,
                min_size=min(min_size, max_size),
                max_size=max_size,
                timeout=timeout,
                open=False,
                check=_checker(timeout),
                kwargs={"autocommit": True, "connect_timeout": max(1, round(timeout))},
                name=name,
            )

        self._new_pool = new_pool
        self.pool: AsyncConnectionPool[AsyncConnection[Any]] = new_pool()
        self._opened = False
        self._closed = False
        self._timeout = timeout
        self.last_connect_error: str | None = None

    @property
    def is_closed(self) -> bool:
        """Whether :meth:`aclose` ran."""
        return self._closed

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        """A checked connection, returned to the pool on the way out."""
        if not self._opened:
            self._opened = True
            await self._open()
        pool = self.pool
        try:
            connection = await pool.getconn()
        except PoolTimeout:
            if self.last_connect_error is None:
                raise
            if self.pool is pool:  # not replaced already by a use waiting beside this one
                self.pool = self._new_pool()
                await pool.close(timeout=0)
                _pools.pop(pool.name, None)
                await self._open()
            pool = self.pool
            connection = await pool.getconn()
        try:
            async with connection:
                yield connection
        finally:
            await pool.putconn(connection)

    async def _open(self) -> None:
        try:
            await self.pool.open(wait=True, timeout=self._timeout)
        except BaseException:
            await self.aclose()  # nothing goes on connecting behind the error
            raise
        self.last_connect_error = None

    async def aclose(self) -> None:
        """Close the pool and its connections."""
        self._closed = True
        if self._opened:
            await self.pool.close()
