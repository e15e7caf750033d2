"""Every HTTP adapter against one loopback fault server: what the server answers, how a
model of each adapter is pointed at it, and a call or a stream of ``"hi"``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

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

__all__ = [
    "any_adapter",
    "call",
    "every_adapter_and_mode",
    "make",
    "model_on_server",
    "stream",
]

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
    """A model of ``adapter`` (``openai``, ``anthropic`` or ``ollama``) on ``server``."""
    root = server.base_url.removesuffix("/v1")
    if adapter == "openai":
        return OpenAIChatModel(model="m", base_url=f"{root}/v1")
    if adapter == "anthropic":
        return AnthropicChatModel(model="m", base_url=root)
    return OllamaChatModel(model="m", base_url=root)


def model_on_server(serve: Callable[..., FaultServer], adapter: str) -> tuple[FaultServer, Any]:
    """A fault server started with ``serve`` that answers like :func:`any_adapter`, and a
    model of ``adapter`` on it."""
    server = serve(any_adapter)
    return server, make(adapter, server)


async def call(model: Any) -> None:
    """One call of ``"hi"``."""
    await model.call(Prompt("hi"))


async def stream(model: Any) -> None:
    """One stream of ``"hi"``, read to its end."""
    async for _ in model.stream(Prompt("hi")):
        pass


def every_adapter_and_mode(test: Any) -> Any:
    """Run ``test`` for each adapter (``adapter``) and with a call and a stream (``mode``)."""
    test = pytest.mark.parametrize("adapter", ["openai", "anthropic", "ollama"])(test)
    return pytest.mark.parametrize("mode", [call, stream], ids=["call", "stream"])(test)
