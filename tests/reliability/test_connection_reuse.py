"""Streamed and whole replies give their connection back to the pool.

A stream ends with its last event (``[DONE]``, ``message_stop``, a ``done`` line), but the
HTTP response ends a little later (the chunked body's last, empty chunk). Reading stops at
the last event; the rest of the body must still be read, so that the connection is
reused by the next request instead of closed. Counted from the loopback server's side:
several calls and streams on one event loop open one connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ostinato.client import ChatClient
from tests.reliability.every_adapter import every_adapter_and_mode, model_on_server
from tests.reliability.faultserver import FaultServer

RUNS = 5


@every_adapter_and_mode
def test_one_connection_serves_every_request_of_a_loop(
    adapter: str, mode: Callable[[Any], Any], serve: Callable[..., FaultServer]
) -> None:
    server, model = model_on_server(serve, adapter)

    async def main() -> None:
        for _ in range(RUNS):
            await mode(model)
        await model.aclose()

    asyncio.run(main())
    assert len(server.requests) == RUNS
    assert server.connections_opened == 1
    assert server.wait_idle()


def test_the_sync_face_streams_on_one_connection(serve: Callable[..., FaultServer]) -> None:
    server, model = model_on_server(serve, "openai")
    client = ChatClient.builder(model).build()
    for _ in range(RUNS):
        assert "".join(client.prompt("hi").stream().content()) == "answer to hi"
        assert client.prompt("hi").call().content() == "answer to hi"
    assert server.connections_opened == 1
    asyncio.run(model.aclose())
    assert server.wait_idle()
