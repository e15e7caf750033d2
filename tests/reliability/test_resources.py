"""The resource checks themselves: an async generator abandoned to the garbage collector is
closed by the loop in a task of its own, and the check waits for that task instead of
counting it as one left running; the fault server counts a connection closed only once
its socket is, so that sockets counted right after ``wait_idle`` are the client's."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tests.reliability.faultserver import FaultServer, reply
from tests.reliability.resources import assert_nothing_left, finalised, open_sockets, snapshot


async def _closing_slowly() -> AsyncIterator[int]:
    try:
        yield 1
    finally:
        for _ in range(3):  # closing takes a few turns of the loop (a connection's close)
            await asyncio.sleep(0)


async def _abandon_one() -> None:
    """Start a generator and drop it unclosed, as a library reading a body may."""
    generator = _closing_slowly()
    assert await anext(generator) == 1
    del generator
    gc.collect()
    # One turn of the loop: the finaliser's task starts and is still closing.
    await asyncio.sleep(0)
    await asyncio.sleep(0)


async def test_the_check_waits_for_the_finaliser_of_an_abandoned_generator() -> None:
    before = snapshot()
    await _abandon_one()
    await finalised()
    assert_nothing_left(before)


async def test_without_waiting_the_finaliser_is_named_in_the_failure() -> None:
    before = snapshot()
    await _abandon_one()
    with pytest.raises(AssertionError, match="await finalised"):
        assert_nothing_left(before)
    await finalised()
    assert_nothing_left(before)


def test_a_connection_counted_closed_holds_no_socket(
    serve: Callable[..., FaultServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's loop closes a socket a turn after its handler ends; here that turn is
    # slow (as on a loaded machine), so a count taken as soon as the server reported the
    # connection closed would still see the server's end of it.
    transport: Any = asyncio.selector_events._SelectorTransport  # type: ignore[attr-defined]
    close = transport._call_connection_lost

    def slow_close(self: Any, exc: BaseException | None) -> None:
        if threading.current_thread().name == "fault-server":
            time.sleep(0.2)  # widens the window; nothing waits on it
        close(self, exc)

    monkeypatch.setattr(transport, "_call_connection_lost", slow_close)
    server = serve([reply(200, {"ok": True})])
    sockets = open_sockets()
    with socket.create_connection(("127.0.0.1", server.port)) as client:
        client.sendall(b"GET /v1/x HTTP/1.1\r\nHost: x\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
    assert server.wait_idle()
    assert open_sockets() <= sockets
