"""How each HTTP adapter fails: the network's failures, huge error bodies, invalid limits.

Parametrised over the adapters (:mod:`tests.plugins.failing`), each failing with its API's
documented error body. A transport failure, in a call or a stream, is typed, keeps its
cause, names the endpoint and never shows the key. (Retries are
``tests/plugins/test_adapter_retries.py``'s; what each adapter adds, such as Ollama's
hints, stays with its own tests.)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from ostinato.errors import (
    ConfigurationError,
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
)
from ostinato.prompt import Prompt
from tests.fakes.mock_model import stream_chunks
from tests.plugins.failing import Failing, each_adapter

#: A transport failure, the error it becomes, and what that says (``{}``: the endpoint).
TRANSPORT_FAILURES = {
    "refused": (
        httpx.ConnectError("All connection attempts failed"),
        ModelConnectionError,
        "connection to {} failed",
    ),
    "timeout": (httpx.ReadTimeout("slow"), ModelTimeoutError, "no answer from {} in time"),
    "undecodable": (
        httpx.DecodingError("bad gzip"),
        MalformedResponseError,
        "could not be decoded",
    ),
}


@each_adapter
@pytest.mark.parametrize("failure", list(TRANSPORT_FAILURES))
@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_transport_failures(adapter: Failing, mode: str, failure: str):
    exception, cls, words = TRANSPORT_FAILURES[failure]
    model, _ = adapter.model_for(exception)
    with pytest.raises(ModelError) as caught:
        if mode == "call":
            await model.call(Prompt("hi"))
        else:
            await stream_chunks(model)
    error = caught.value
    assert type(error) is cls
    assert error.__cause__ is exception
    assert error.provider == adapter.name
    assert words.format(adapter.endpoint) in str(error)
    assert adapter.key not in repr(error)
    lines = str(error).splitlines()
    if failure == "refused":
        assert lines[0].startswith(f"{adapter.name}: connection to {adapter.endpoint} failed")
        if adapter.unreachable_hint is not None:
            assert lines[1] == adapter.unreachable_hint


@each_adapter
async def test_a_transport_error_quoting_the_key_has_it_masked(adapter: Failing):
    model, _ = adapter.model_for(httpx.ConnectError(f"refused while sending {adapter.key}"))
    with pytest.raises(ModelConnectionError) as info:
        await model.call(Prompt("hi"))
    assert adapter.key not in str(info.value) and "***" in str(info.value)


async def _pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


@each_adapter
async def test_a_huge_error_body_is_cut_not_held(adapter: Failing):
    body = json.dumps(adapter.error_body("y" * (1 << 20))).encode()
    model, _ = adapter.model_for(httpx.Response(500, content=_pieces(body[:1000], body[1000:])))
    with pytest.raises(ModelError) as info:
        await model.call(Prompt("hi"))
    assert len(str(info.value)) < 4000  # an excerpt, not the megabyte


@each_adapter
@pytest.mark.parametrize(
    ("limit", "words"),
    [(0, "max_response_bytes must be at least 1"), ("big", "max_response_bytes must be an int")],
    ids=["zero", "no-int"],
)
def test_an_invalid_limit_is_refused(adapter: Failing, limit: object, words: str):
    with pytest.raises(ConfigurationError, match=words):
        adapter.model_for(max_response_bytes=limit)
