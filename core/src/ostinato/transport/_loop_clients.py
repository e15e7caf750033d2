"""One HTTP client per running event loop (DESIGN.md §8), whatever the HTTP library.

An async client's connection pool belongs to the loop it first ran on; ostinato's sync
faces run on a private loop while async callers bring their own. So an adapter keeps one
client per loop, made by its factory on first use there, and closes them all on
``aclose()``: on the calling loop directly, on another running loop through that loop,
and not at all on a loop already closed (its connections died with it). Any client with
``is_closed`` and ``aclose()`` will do (``httpx.AsyncClient`` has both); this module does
not import httpx.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

__all__ = ["AsyncClosable", "LoopClients"]

_CLOSE_TIMEOUT = 10.0


class AsyncClosable(Protocol):
    """What :class:`LoopClients` needs of a client."""

    @property
    def is_closed(self) -> bool:
        """Whether the client was closed."""
        ...

    async def aclose(self) -> None:
        """Close the client and its connections."""
        ...


C = TypeVar("C", bound=AsyncClosable)


class LoopClients(Generic[C]):
    """The clients an adapter made, one per event loop.

    Args:
        factory: makes a client; called on the loop that will use it.
        kind: the type every made client must be (checked, so that a wrong
            ``http_client_factory`` fails clearly); ``None`` checks nothing.
    """

    __slots__ = ("_clients", "_factory", "_kind", "_lock")

    def __init__(self, factory: Callable[[], C], kind: type[C] | None = None) -> None:
        self._factory = factory
        self._kind = kind
        self._lock = threading.Lock()
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, C]
        self._clients = weakref.WeakKeyDictionary()

    def get(self) -> C:
        """The running loop's client, made now if there is none (or it was closed)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = self._factory()
                if self._kind is not None and not isinstance(client, self._kind):
                    raise TypeError(
                        f"http_client_factory must return an {self._kind.__module__}."
                        f"{self._kind.__qualname__}, got {type(client).__name__}"
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
                future = asyncio.run_coroutine_threadsafe(_close(client), loop)
                await asyncio.wait_for(asyncio.wrap_future(future), _CLOSE_TIMEOUT)


async def _close(client: AsyncClosable) -> None:
    await client.aclose()
