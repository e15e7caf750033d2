"""Abandoning a stream closes its HTTP response at once — seen from the server's side.

The server sends the first part of an answer and then waits; the consumer stops after
the first piece (``break``, task cancellation, closing a sync iterator). The server must
see the client hang up promptly — not when the read timeout fires, nor at garbage
collection — and nothing may be left open afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import aclosing

import httpx
import pytest

from ostinato import ChatClient
from ostinato.prompt import Prompt
from ostinato.runtime import run_sync
from ostinato_openai import OpenAIChatModel, RetryPolicy
from tests.reliability.faultserver import FaultServer, stalled_stream, text_chunks
from tests.reliability.resources import assert_nothing_left, finalised, snapshot

# Far beyond the test's own waits: a hang-up seen by the server came from closing, not
# from a timeout.
READ_TIMEOUT = 60.0
HANG_UP_WITHIN = 5.0


def stalling_server(serve: Callable[..., FaultServer]) -> FaultServer:
    return serve([stalled_stream(text_chunks("first", " second")[:2], hold=READ_TIMEOUT)])


def model_for(server: FaultServer) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="fault-model",
        api_key="sk-cancel",
        base_url=server.base_url,
        timeout=httpx.Timeout(READ_TIMEOUT, connect=2.0),
        retry_policy=RetryPolicy(max_retries=0),
    )


def hung_up(server: FaultServer) -> bool:
    return server.wait_for(lambda s: s.hang_ups == 1, HANG_UP_WITHIN)


@pytest.fixture
async def leak_check() -> AsyncIterator[None]:
    before = snapshot()
    yield
    await finalised()
    assert_nothing_left(before)


async def test_breaking_out_of_a_model_stream_closes_the_response(serve, leak_check):
    server = stalling_server(serve)
    model = model_for(server)
    async with aclosing(model.stream(Prompt("hi"))) as chunks:
        async for chunk in chunks:
            assert chunk.text == "first"
            break
    assert hung_up(server)
    await model.aclose()
    assert server.wait_idle()
    server.stop()


@pytest.mark.parametrize("face", ["content", "chat_responses", "chat_client_responses"])
async def test_cancelling_a_chat_client_stream_consumer_closes_the_response(
    serve, leak_check, face
):
    server = stalling_server(serve)
    model = model_for(server)
    client = ChatClient.builder(model).build()
    first = asyncio.Event()

    async def consume() -> None:
        spec = client.prompt("hi").stream()
        stream = {
            "content": spec.acontent,
            "chat_responses": spec.achat_responses,
            "chat_client_responses": spec.achat_client_responses,
        }[face]()
        async for _ in stream:
            first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert hung_up(server)
    await model.aclose()
    assert server.wait_idle()
    server.stop()


def sync_scenario(serve: Callable[..., FaultServer], use: Callable[[Iterator[str]], None]) -> None:
    before = snapshot()
    server = stalling_server(serve)
    model = model_for(server)
    client = ChatClient.builder(model).build()
    use(client.prompt("hi").stream().content())
    assert hung_up(server)
    run_sync(model.aclose())
    assert server.wait_idle()
    server.stop()
    assert_nothing_left(before)


def test_closing_a_sync_stream_closes_the_response(serve):
    def use(stream: Iterator[str]) -> None:
        assert next(stream) == "first"
        stream.close()  # type: ignore[attr-defined]

    sync_scenario(serve, use)


def test_leaving_a_with_block_over_a_sync_stream_closes_the_response(serve):
    def use(stream: Iterator[str]) -> None:
        with stream:  # type: ignore[attr-defined]
            for piece in stream:
                assert piece == "first"
                break

    sync_scenario(serve, use)


def test_breaking_out_of_a_sync_for_loop_closes_the_response(serve):
    def use(stream: Iterator[str]) -> None:
        for piece in stream:
            assert piece == "first"
            break
        del stream  # the last reference: CPython finalises the iterator here

    sync_scenario(serve, use)
