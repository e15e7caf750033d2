"""The linear-time connection pool the model's own clients use (``ostinato.transport._pool``)."""

from __future__ import annotations

import asyncio

import httpcore
import httpx

from ostinato.transport import LinearConnectionPool, use_linear_pool
from ostinato_openai import OpenAIChatModel

REPLY = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


async def _serve() -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await reader.readuntil(b"\r\n\r\n"):  # requests without a body
                await asyncio.sleep(0.01)  # long enough for the burst to need many sockets
                writer.write(REPLY)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def test_the_models_own_clients_use_the_linear_pool():
    client = OpenAIChatModel(model="m", base_url="http://127.0.0.1:9/v1")._make_client()
    assert type(client._transport._pool) is LinearConnectionPool  # type: ignore[attr-defined]


def test_a_proxy_pool_is_left_alone():
    transport = httpx.AsyncHTTPTransport(proxy="http://127.0.0.1:9")
    assert not use_linear_pool(transport)
    assert type(transport._pool) is not LinearConnectionPool


async def test_bursts_are_served_and_only_surplus_idle_connections_are_closed():
    server, port = await _serve()
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=10)
    transport = httpx.AsyncHTTPTransport(limits=limits)
    assert use_linear_pool(transport)
    pool = transport._pool
    async with server, httpx.AsyncClient(transport=transport) as client:
        for _ in range(2):
            responses = await asyncio.gather(
                *(client.get(f"http://127.0.0.1:{port}/") for _ in range(30))
            )
            assert all(r.status_code == 200 for r in responses)
        # Idle connections beyond the keep-alive limit are closed, the rest are kept.
        await client.get(f"http://127.0.0.1:{port}/")
        assert 1 <= len(pool.connections) <= 10
        assert all(isinstance(c, httpcore.AsyncConnectionInterface) for c in pool.connections)
