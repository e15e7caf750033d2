"""``LoopClients``: one client per running loop, remade when closed, all closed at the end."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from ostinato.transport import LoopClients
from tests.fakes.loops import loop_on_a_thread


class FakeClient:
    """A client with the two members LoopClients needs."""

    def __init__(self) -> None:
        self.is_closed = False
        self.loop: asyncio.AbstractEventLoop | None = None

    async def aclose(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.is_closed = True


class Factory:
    def __init__(self) -> None:
        self.made: list[FakeClient] = []

    def __call__(self) -> FakeClient:
        client = FakeClient()
        self.made.append(client)
        return client


async def test_one_client_per_loop_reused_remade_and_closed():
    factory = Factory()
    clients = LoopClients(factory, FakeClient)
    first = clients.get()
    assert clients.get() is first
    assert len(clients) == 1
    first.is_closed = True
    second = clients.get()
    assert second is not first
    await clients.aclose()
    assert second.is_closed
    assert len(clients) == 0


def test_each_event_loop_gets_its_own_client():
    factory = Factory()
    clients = LoopClients(factory)

    async def use() -> FakeClient:
        return clients.get()

    one = asyncio.run(use())
    other = asyncio.run(use())
    assert one is not other
    asyncio.run(clients.aclose())
    assert one.is_closed and other.is_closed


def test_asyncio_run_closes_its_client_at_shutdown_and_forgets_its_loop():
    factory = Factory()
    clients = LoopClients(factory)
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def use() -> FakeClient:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        return clients.get()

    made = [asyncio.run(use()) for _ in range(20)]
    # Each client was closed by its own loop's shutdown, while that loop still ran.
    assert all(c.is_closed and c.loop is not None for c in made)
    assert len(clients) == 0  # no dead loop, no client kept
    for client in made:
        client.loop = None  # the fake's own record of its loop
    gc.collect()
    assert all(ref() is None for ref in loops)


def test_a_loop_closed_without_shutting_down_is_forgotten_on_next_get():
    factory = Factory()
    clients = LoopClients(factory)

    async def use() -> FakeClient:
        return clients.get()

    loop = asyncio.new_event_loop()
    abandoned = loop.run_until_complete(use())
    loop.close()  # no shutdown_asyncgens(): the client could not be closed on its loop
    assert len(clients) == 1
    fresh = asyncio.run(use())
    assert fresh is not abandoned
    assert len(clients) == 0  # the closed loop was swept; the last one shut down


async def test_a_client_of_another_running_loop_is_closed_on_its_loop():
    factory = Factory()
    clients = LoopClients(factory)

    async def use() -> FakeClient:
        return clients.get()

    with loop_on_a_thread() as other:
        remote = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(use(), other))
        local = clients.get()
        await clients.aclose()
        assert remote.is_closed and remote.loop is other
        assert local.is_closed and local.loop is asyncio.get_running_loop()


async def test_a_factory_returning_the_wrong_type_fails_clearly():
    clients = LoopClients(lambda: object(), FakeClient)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match=r"must return an .*FakeClient, got object"):
        clients.get()
