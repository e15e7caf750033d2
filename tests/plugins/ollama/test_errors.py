"""Typed errors from ``{"error": "<string>"}`` bodies, plain-text bodies and the network,
with hints where the cause is common.

The corpus has no native Ollama error (see its README); the bodies below are Ollama's
documented ``{"error": "..."}`` shape with the messages its server gives.
"""

from __future__ import annotations

import json

import httpx
import pytest

from ostinato.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelError,
    ModelTimeoutError,
    NotFoundError,
    RateLimitError,
    ServerError,
)
from ostinato.prompt import Prompt
from ostinato.testing.conformance import WEATHER_TOOL
from ostinato_ollama import OllamaChatOptions
from tests.plugins.ollama.fakes import (
    API_KEY,
    done,
    model_for,
    ndjson,
    piece,
    reply,
    stream_chunks,
)


def error(status: int, message: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"error": message}, headers=headers)


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_a_model_that_cannot_use_tools_is_named(mode: str):
    model, _ = model_for(
        error(400, "registry.ollama.ai/library/gemma3:1b does not support tools"), model="gemma3:1b"
    )
    prompt = Prompt("Weather?", OllamaChatOptions(tool_callbacks=(WEATHER_TOOL,)))
    with pytest.raises(BadRequestError) as caught:
        if mode == "call":
            await model.call(prompt)
        else:
            await stream_chunks(model, prompt)
    assert str(caught.value).splitlines() == [
        "ollama error 400: registry.ollama.ai/library/gemma3:1b does not support tools",
        "fix: 'gemma3:1b' cannot call tools; pick a model with tool support "
        "(https://ollama.com/search?c=tools) or send the request without tools",
    ]
    assert (caught.value.provider, caught.value.status) == ("ollama", 400)


async def test_a_model_that_cannot_think():
    model, _ = model_for(error(400, '"gemma3:1b" does not support thinking'), model="gemma3:1b")
    with pytest.raises(BadRequestError, match="'gemma3:1b' cannot think"):
        await model.call(Prompt("hi", OllamaChatOptions(think=True)))


async def test_a_model_not_pulled():
    model, _ = model_for(
        error(404, 'model "llama9" not found, try pulling it first'), model="llama9"
    )
    with pytest.raises(NotFoundError) as caught:
        await model.call(Prompt("hi"))
    assert "fix: pull it first (ollama pull llama9)" in str(caught.value)


async def test_a_wrong_base_url():
    model, _ = model_for(httpx.Response(404, text="404 page not found"))
    with pytest.raises(NotFoundError) as caught:
        await model.call(Prompt("hi"))
    assert str(caught.value).splitlines() == [
        "ollama error 404: 404 page not found",
        "fix: check OSTINATO_OLLAMA_BASE_URL (the server's root, without /api)",
    ]


async def test_ollama_com_without_a_key():
    model, _ = model_for(error(401, "unauthorized"), api_key=None)
    with pytest.raises(AuthenticationError, match="OSTINATO_OLLAMA_API_KEY"):
        await model.call(Prompt("hi"))


async def test_the_key_never_shows():
    model, _ = model_for(error(401, f"bad key {API_KEY}"))
    with pytest.raises(AuthenticationError) as caught:
        await model.call(Prompt("hi"))
    assert API_KEY not in str(caught.value) + repr(caught.value)


@pytest.mark.parametrize(
    ("status", "cls"),
    [(429, RateLimitError), (500, ServerError), (502, ServerError), (418, ModelError)],
)
async def test_statuses(status: int, cls: type[ModelError]):
    model, _ = model_for(error(status, "nope", **{"retry-after": "3"}))
    with pytest.raises(cls) as caught:
        await model.call(Prompt("hi"))
    assert type(caught.value) is cls
    assert caught.value.retry_after == 3.0
    assert str(caught.value) == f"ollama error {status}: nope"


async def test_an_empty_error_body_says_the_reason_phrase():
    model, _ = model_for(httpx.Response(503))
    with pytest.raises(ServerError, match="ollama error 503: Service Unavailable"):
        await model.call(Prompt("hi"))


async def test_a_timeout_mentions_model_loading():
    model, _ = model_for(httpx.ReadTimeout("timed out"))
    with pytest.raises(ModelTimeoutError, match="loading a large model can take minutes"):
        await model.call(Prompt("hi"))


# -- replies larger than max_response_bytes ---------------------------------------------


async def _pieces(*parts: bytes):
    for part in parts:
        yield part


async def test_a_call_reply_over_the_limit_is_refused():
    model, _ = model_for(reply("x" * 500), max_response_bytes=200)
    assert model.max_response_bytes == 200
    with pytest.raises(MalformedResponseError, match="larger than max_response_bytes=200"):
        await model.call(Prompt("hi"))


async def test_a_chunked_call_reply_over_the_limit_is_refused():
    line = (json.dumps(done(content="x" * 300)) + "\n").encode()
    chunked = httpx.Response(200, content=_pieces(line[:150], line[150:]))
    model, _ = model_for(chunked, max_response_bytes=200)
    with pytest.raises(MalformedResponseError, match="stopped reading after"):
        await model.call(Prompt("hi"))


async def test_a_stream_over_the_limit_is_refused():
    model, _ = model_for(ndjson(*(piece("x" * 100) for _ in range(10)), done()))
    small, _ = model_for(
        ndjson(*(piece("x" * 100) for _ in range(10)), done()), max_response_bytes=500
    )
    assert len(await stream_chunks(model)) == 11
    with pytest.raises(MalformedResponseError, match="larger than max_response_bytes=500"):
        await stream_chunks(small)
