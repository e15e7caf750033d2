"""A server that stops answering: every operation fails within the timeout, naming the
setting to raise, instead of waiting forever.

The repository reaches the real server through a loopback proxy that, once frozen, keeps
accepting bytes and never forwards an answer (a stopped server, or a firewall dropping
packets: the kernel still acknowledges, nothing comes back)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import pytest

from ostinato.messages import UserMessage
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_postgres import PostgresChatMemoryRepository
from tests.servers import PostgresServer


class FreezingProxy:
    """Forwards loopback connections to ``target_port`` until :attr:`frozen` is set."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.frozen = False
        self.port = 0
        self._writers: list[asyncio.StreamWriter] = []

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers.append(up_writer)
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(OSError):
            while data := await reader.read(65536):
                if not self.frozen:  # frozen: take the bytes, answer nothing
                    writer.write(data)
                    await writer.drain()
        writer.close()

    def close(self) -> None:
        for writer in self._writers:
            writer.close()


@asynccontextmanager
async def freezing_proxy(target_port: int) -> AsyncIterator[FreezingProxy]:
    proxy = FreezingProxy(target_port)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0)
    proxy.port = server.sockets[0].getsockname()[1]
    try:
        yield proxy
    finally:
        server.close()
        proxy.close()
        await server.wait_closed()


async def test_a_server_that_stops_answering_fails_each_operation_within_the_timeout(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    async with freezing_proxy(postgres_server.port) as proxy:
        through_proxy = postgres_url.replace(f":{postgres_server.port}/", f":{proxy.port}/")
        repository = PostgresChatMemoryRepository(through_proxy, timeout=1)
        await repository.save_all("c", [UserMessage("kept")])
        proxy.frozen = True

        # The pool's open connection: the statements go out, no answer comes back.
        started = time.monotonic()
        with pytest.raises(ChatMemoryStoreUnavailableError) as caught:
            await repository.save_all("c", [UserMessage("lost")])
        assert time.monotonic() - started < 4
        message = str(caught.value)
        assert "did not answer within 1 s while trying to write" in message
        assert "raise OSTINATO_MEMORY_POSTGRES_TIMEOUT" in message

        # That connection is gone; a new one never completes its handshake.
        started = time.monotonic()
        with pytest.raises(ChatMemoryStoreUnavailableError, match="POSTGRES_TIMEOUT"):
            await repository.find_by_conversation_id("c")
        assert time.monotonic() - started < 4
        await repository.aclose()

    # The write never reached the server: nothing of it is stored.
    direct = PostgresChatMemoryRepository(postgres_url)
    assert await direct.find_by_conversation_id("c") == [UserMessage("kept")]
    await direct.aclose()
