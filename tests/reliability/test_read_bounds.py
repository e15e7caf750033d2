"""Every HTTP adapter bounds a reply as a whole, and refuses a redirect, call and stream.

httpx's timeouts apply per read: a server sending a byte every fraction of a second
would hold a call for ever. Here a real loopback server trickles bytes that complete
nothing (JSON whitespace, SSE comments, blank NDJSON lines): the call fails once its
``call_deadline`` passed, a stream once its ``first_event_timeout`` passed, each with a
:class:`ModelTimeoutError` naming the bound and the variable to raise, and the HTTP
response is closed (the server sees the client hang up). A 3xx is never followed: the
error names the status, where it points and the base URL variable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import pytest

from ostinato.errors import ModelError, ModelTimeoutError
from ostinato.http import HttpxChatModel
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from ostinato_anthropic import AnthropicChatModel
from ostinato_ollama import OllamaChatModel
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import Fault, FaultServer, reply, trickle

KEY = "sk-bounds-test-0123456789"
BOUND = 0.4
EVERY = 0.05


@dataclass(frozen=True)
class Adapter:
    """One adapter as these tests drive it."""

    name: str
    prefix: str
    make: Callable[..., HttpxChatModel[Any]]
    path: str
    #: What the trickle sends: it never completes a value, an event or a line.
    call_filler: bytes
    stream_filler: bytes
    stream_type: str
    #: A whole reply answering ``slow``.
    call_reply: bytes


ADAPTERS = [
    Adapter(
        "openai",
        "OSTINATO_OPENAI_",
        OpenAIChatModel,
        "/chat/completions",
        b" ",
        b": keep-alive\n\n",
        "text/event-stream",
        b'{"id": "c", "choices": [{"index": 0, "finish_reason": "stop", '
        b'"message": {"role": "assistant", "content": "slow"}}]}',
    ),
    Adapter(
        "anthropic",
        "OSTINATO_ANTHROPIC_",
        AnthropicChatModel,
        "/v1/messages",
        b" ",
        b": keep-alive\n\n",
        "text/event-stream",
        b'{"id": "msg", "type": "message", "role": "assistant", "model": "m", '
        b'"content": [{"type": "text", "text": "slow"}], "stop_reason": "end_turn", '
        b'"usage": {"input_tokens": 1, "output_tokens": 1}}',
    ),
    Adapter(
        "ollama",
        "OSTINATO_OLLAMA_",
        OllamaChatModel,
        "/api/chat",
        b"\n",
        b"\n",
        "application/x-ndjson",
        b'{"model": "m", "message": {"role": "assistant", "content": "slow"}, '
        b'"done": true, "done_reason": "stop"}\n',
    ),
]
MODES = ["call", "stream"]


@pytest.fixture(params=ADAPTERS, ids=[a.name for a in ADAPTERS])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def serve() -> Iterator[Callable[..., FaultServer]]:
    servers: list[FaultServer] = []

    def start(*script: Fault) -> FaultServer:
        server = FaultServer(list(script)).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def model_for(adapter: Adapter, server: FaultServer, **options: Any) -> HttpxChatModel[Any]:
    root = server.base_url if adapter.name == "openai" else server.base_url.removesuffix("/v1")
    return adapter.make(
        model="m",
        api_key=KEY,
        base_url=root,
        timeout=5.0,  # per read: far above the bounds, so only they can fire
        retry_policy=RetryPolicy(max_retries=2, initial_delay=0.01, jitter=0.0),
        **options,
    )


async def run(model: HttpxChatModel[Any], mode: str) -> str:
    async with model:
        if mode == "call":
            return (await model.call(Prompt("hi"))).text or ""
        pieces = []
        async with aclosing(model.stream(Prompt("hi"))) as chunks:
            async for chunk in chunks:
                pieces.append(chunk.text or "")
        return "".join(pieces)


async def stopped_by(
    bound: str, adapter: Adapter, server: FaultServer, model: HttpxChatModel[Any], mode: str
) -> str:
    """Run ``model`` on ``mode``: it fails with a timeout naming ``bound`` and its fix, and
    the server is left with nothing open and no retry. The error's text is returned."""
    with pytest.raises(ModelTimeoutError) as caught:
        await run(model, mode)
    message = str(caught.value)
    assert f"{bound}={BOUND:g} s" in message
    assert f"fix: raise {adapter.prefix}{bound.upper()}" in message
    # The client closed the HTTP response: nothing is left open, and a reply the server
    # had started (a busy machine may reach the bound before) saw the client hang up.
    assert server.wait_idle()
    assert server.hang_ups == server.streams_started
    assert len(server.requests) <= 1  # a bound the user set is not retried
    return message


async def test_a_trickled_call_stops_at_its_deadline(adapter: Adapter, serve: Any) -> None:
    server = serve(trickle(adapter.call_filler, every=EVERY, content_type="application/json"))
    model = model_for(adapter, server, call_deadline=BOUND)
    message = await stopped_by("call_deadline", adapter, server, model, "call")
    assert KEY not in message


async def test_a_trickled_stream_stops_waiting_for_its_first_event(
    adapter: Adapter, serve: Any
) -> None:
    server = serve(trickle(adapter.stream_filler, every=EVERY, content_type=adapter.stream_type))
    model = model_for(adapter, server, first_event_timeout=BOUND)
    await stopped_by("first_event_timeout", adapter, server, model, "stream")


@pytest.mark.parametrize("deadline", [None, 20 * BOUND])
async def test_a_slow_reply_within_its_deadline_is_read(
    adapter: Adapter, deadline: float | None, serve: Any
) -> None:
    slow = trickle(
        adapter.call_filler,
        every=EVERY,
        content_type="application/json",
        hold=2 * BOUND,
        then=adapter.call_reply,
    )
    server = serve(slow)
    assert await run(model_for(adapter, server, call_deadline=deadline), "call") == "slow"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_redirect_is_an_error_naming_where_it_points(
    adapter: Adapter, mode: str, status: int, serve: Any
) -> None:
    server = serve(
        reply(status, b"", headers={"location": "https://moved.example/api/v2" + adapter.path})
    )
    model = model_for(adapter, server)
    with pytest.raises(ModelError) as caught:
        await run(model, mode)
    error = caught.value
    assert error.status == status
    message = str(error)
    assert f"answered {status}" in message
    assert f"'https://moved.example/api/v2{adapter.path}'" in message
    assert f"fix: set {adapter.prefix}BASE_URL to 'https://moved.example/api/v2'" in message
    assert len(server.requests) == 1  # neither followed nor retried


@pytest.mark.parametrize("mode", MODES)
async def test_a_redirect_without_location_says_to_check_the_base_url(
    adapter: Adapter, mode: str, serve: Any
) -> None:
    server = serve(reply(302, b""))
    with pytest.raises(ModelError, match=f"without a Location.*\n.*{adapter.prefix}BASE_URL"):
        await run(model_for(adapter, server), mode)
