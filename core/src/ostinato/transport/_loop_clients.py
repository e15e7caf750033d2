"""One HTTP client per running event loop, whatever the HTTP library.

An async client's connection pool belongs to the loop it first ran on; ostinato's sync
faces run on a private loop while async callers bring their own. So an adapter keeps one
client per loop, made by its factory on first use there, and closes them all on
``aclose()``: on the calling loop directly, on another running loop through that loop.

A program may also end a loop without closing the model — ``asyncio.run(...)`` called
again and again on one model. Each client is then closed *by its loop's shutdown*: next to
it lives a suspended async generator the loop knows of (the loop's ``firstiter`` hook
registered it), and ``loop.shutdown_asyncgens()``, which ``asyncio.run`` and
``asyncio.Runner`` call before closing the loop, finalises it — its ``finally`` closes the
client, and its connections, on its own loop while that loop still runs. A loop closed
without that step (``loop.close()`` alone) has its client forgotten on the next
:meth:`LoopClients.get`, so neither the loop nor the client stays referenced; their
sockets are closed when collected. Any client with ``is_closed`` and ``aclose()`` will do
(``httpx.AsyncClient`` has both); this module does not import httpx.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
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

    __slots__ = ("__weakref__", "_clients", "_factory", "_kind", "_lock")

    def __init__(self, factory: Callable[[], C], kind: type[C] | None = None) -> None:
        self._factory = factory
        self._kind = kind
        self._lock = threading.Lock()
        # Keyed weakly; the client references its loop, so dead loops are also swept.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Entry[C]]
        self._clients = weakref.WeakKeyDictionary()

    def get(self) -> C:
        """The running loop's client, made now if there is none (or it was closed).

        Clients of loops closed meanwhile are forgotten here.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._clients
            entry = clients.get(loop)
            # Only another loop can be closed (this one runs): with this loop's client
            # the only one, there is nothing to sweep.
            if entry is None or len(clients) > 1:
                for dead in [other for other in clients if other.is_closed()]:
                    del clients[dead]
            if entry is None or entry.client.is_closed:
                client = self._factory()
                if self._kind is not None and not isinstance(client, self._kind):
                    raise TypeError(
                        f"http_client_factory must return an {self._kind.__module__}."
                        f"{self._kind.__qualname__}, got {type(client).__name__}"
                    )
                entry = self._clients[loop] = _Entry(client, self._forget(loop, client))
            return entry.client

    def _forget(self, loop: asyncio.AbstractEventLoop, client: C) -> Callable[[], None]:
        ref = weakref.ref(self)

        def forget() -> None:
            owner = ref()
            if owner is not None:
                with owner._lock:
                    entry = owner._clients.get(loop)
                    if entry is not None and entry.client is client:
                        del owner._clients[loop]

        return forget

    def __len__(self) -> int:
        return len(self._clients)

    async def aclose(self) -> None:
        """Close every client made so far and forget them."""
        with self._lock:
            entries = list(self._clients.items())
            self._clients.clear()
        current = asyncio.get_running_loop()
        for loop, entry in entries:
            if loop is current:
                await entry.close()
            elif loop.is_running() and not loop.is_closed():
                future = asyncio.run_coroutine_threadsafe(entry.close(), loop)
                await asyncio.wait_for(asyncio.wrap_future(future), _CLOSE_TIMEOUT)


class _Entry(Generic[C]):
    """A client and the async generator its loop's shutdown finalises (closing it)."""

    __slots__ = ("client", "guard")

    def __init__(self, client: C, forget: Callable[[], None]) -> None:
        self.client = client
        self.guard = _close_at_shutdown(client, forget)
        # The first step runs now, in the running loop: its firstiter hook registers the
        # generator for shutdown_asyncgens(); the generator then waits at its yield.
        step = self.guard.asend(None).__await__()
        with contextlib.suppress(StopIteration):  # it stops at its yield
            step.send(None)

    async def close(self) -> None:
        """Close the client now (the generator's ``finally`` does it)."""
        await self.guard.aclose()


async def _close_at_shutdown(
    client: AsyncClosable, forget: Callable[[], None]
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        forget()  # the loop is ending: neither it nor the client stays referenced
        if not client.is_closed:
            await client.aclose()
