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
import json
from collections.abc import Callable
from typing import Any

import pytest

from ostinato.client import ChatClient
from ostinato.prompt import Prompt
from ostinato_anthropic import AnthropicChatModel
from ostinato_ollama import OllamaChatModel
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import (
    Fault,
    FaultServer,
    ReceivedRequest,
    model_reply,
    reply,
    sse,
)
from tests.reliability.provider_bodies import (
    anthropic_message,
    anthropic_text_events,
    ollama_message,
)
from tests.reliability.resources import open_sockets

RUNS = 20

ANTHROPIC_MESSAGE = anthropic_message("hi")
OLLAMA_REPLY = ollama_message("hi")
#: Anthropic's stream of the same answer.
ANTHROPIC_EVENTS = [
    f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
    for event in anthropic_text_events("hi", usage={"output_tokens": 1})
]


def any_adapter(request: ReceivedRequest) -> Fault:
    """A good answer in the protocol the request's path speaks."""
    if request.target.endswith("/messages"):
        if request.json().get("stream"):
            return sse(ANTHROPIC_EVENTS, done=False)
        return reply(200, ANTHROPIC_MESSAGE)
    if request.target.endswith("/api/chat"):
        if request.json().get("stream"):
            return reply(200, json.dumps(OLLAMA_REPLY) + "\n", content_type="application/x-ndjson")
        return reply(200, OLLAMA_REPLY)
    return model_reply(request)


def make(adapter: str, server: FaultServer) -> Any:
    root = server.base_url.removesuffix("/v1")
    if adapter == "openai":
        return OpenAIChatModel(model="m", base_url=f"{root}/v1")
    if adapter == "anthropic":
        return AnthropicChatModel(model="m", base_url=root)
    return OllamaChatModel(model="m", base_url=root)


async def call(model: Any) -> None:
    await model.call(Prompt("hi"))


async def stream(model: Any) -> None:
    async for _ in model.stream(Prompt("hi")):
        pass


@pytest.mark.parametrize("mode", [call, stream], ids=["call", "stream"])
@pytest.mark.parametrize("adapter", ["openai", "anthropic", "ollama"])
def test_repeated_asyncio_run_leaves_no_connection_and_no_loop(
    adapter: str, mode: Callable[[Any], Any], serve: Callable[..., FaultServer]
) -> None:
    server = serve(any_adapter)
    model = make(adapter, server)
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
    server = serve(any_adapter)
    model = make("openai", server)
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
