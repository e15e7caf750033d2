"""A program calling ``asyncio.run(...)`` again and again on one model leaks nothing.

Each ``asyncio.run`` makes a loop, the model makes an HTTP client for it, the client opens
a connection. When ``asyncio.run`` shuts the loop down, that client and its connections
are closed on it and forgotten: after 20 runs the loopback server sees no connection
open, the model holds no client and the process holds no more sockets than before — for
every adapter, calls and streams, and the sync face (one private loop, one client).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from typing import Any

from ostinato.client import ChatClient
from tests.reliability.every_adapter import every_adapter_and_mode, model_on_server
from tests.reliability.faultserver import FaultServer
from tests.reliability.resources import open_sockets

RUNS = 20


@every_adapter_and_mode
def test_repeated_asyncio_run_leaves_no_connection_and_no_loop(
    adapter: str, mode: Callable[[Any], Any], serve: Callable[..., FaultServer]
) -> None:
    server, model = model_on_server(serve, adapter)
    gc.collect()
    sockets = open_sockets()
    for _ in range(RUNS):
        asyncio.run(mode(model))
    assert server.connections_opened == RUNS  # one loop, one client, one connection each
    assert server.wait_idle()  # every one of them closed
    assert len(model._clients) == 0  # no client, so no dead loop, kept
    assert open_sockets() <= sockets


def test_the_sync_face_keeps_one_client_and_one_connection(
    serve: Callable[..., FaultServer],
) -> None:
    server, model = model_on_server(serve, "openai")
    client = ChatClient.builder(model).build()
    for _ in range(RUNS):
        assert client.prompt("hi").call().content() == "answer to hi"
    assert server.connections_opened == 1  # one private loop, one client, one connection
    for _ in range(RUNS):
        assert "".join(client.prompt("hi").stream().content()) == "answer to hi"
        assert server.open_connections <= 1
    assert len(model._clients) == 1
    asyncio.run(model.aclose())
    assert server.wait_idle()
    assert len(model._clients) == 0
