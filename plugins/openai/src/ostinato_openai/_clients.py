"""One ``httpx.AsyncClient`` per running event loop (DESIGN.md §8).

An async client's connection pool belongs to the loop it first ran on; ostinato's sync
faces run on a private loop while async callers bring their own. So a model keeps one
client per loop, made by its factory on first use there, and closes them all on
``aclose()``: on the calling loop directly, on another running loop through that loop,
and not at all on a loop already closed (its connections died with it).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable

import httpx

__all__ = ["LoopClients"]

_CLOSE_TIMEOUT = 10.0


class LoopClients:
    """The clients a model made, one per event loop."""

    __slots__ = ("_clients", "_factory", "_lock")

    def __init__(self, factory: Callable[[], httpx.AsyncClient]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()

    def get(self) -> httpx.AsyncClient:
        """The running loop's client, made now if there is none (or it was closed)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = self._factory()
                if not isinstance(client, httpx.AsyncClient):
                    raise TypeError(
                        "http_client_factory must return an httpx.AsyncClient, got "
                        f"{type(client).__name__}"
                    )
                self._clients[loop] = client
            return client

    def __len__(self) -> int:
        return len(self._clients)

    async def aclose(self) -> None:
        """Close every client made so far and forget them."""
        with self._lock:
            clients = list(self._clients.items())
            self._clients.clear()
        current = asyncio.get_running_loop()
        for loop, client in clients:
            if client.is_closed:
                continue
            if loop is current:
                await client.aclose()
            elif loop.is_running() and not loop.is_closed():
                future = asyncio.run_coroutine_threadsafe(client.aclose(), loop)
                await asyncio.wait_for(asyncio.wrap_future(future), _CLOSE_TIMEOUT)
