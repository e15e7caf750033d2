"""Ollama's retries: a restarting server, streams only before they deliver, error lines
never (the retries every HTTP adapter shares are ``tests/plugins/test_adapter_retries.py``'s)."""

from __future__ import annotations

import httpx
import pytest

from ostinato.errors import ServerError, StreamInterruptedError
from ostinato.prompt import Prompt
from tests.plugins.ollama.fakes import (
    aggregate,
    done,
    error_reply,
    model_for,
    ndjson,
    piece,
    reply,
    stream_chunks,
)


async def test_connection_failures_are_retried():
    # Ollama restarting, or still starting up.
    model, sent = model_for(httpx.ConnectError("refused"), reply(), max_retries=1)
    assert (await model.call(Prompt("hi"))).text == "ok"
    assert len(sent) == 2


async def test_a_stream_is_retried_before_it_delivers():
    model, sent = model_for(
        error_reply(503),
        httpx.ConnectError("refused"),
        ndjson(piece("o"), done(content="k")),
        max_retries=2,
    )
    assert (await aggregate(model)).text == "ok"
    assert len(sent) == 3


async def test_a_stream_is_never_retried_once_it_delivered():
    body = ndjson(piece("Hel"), piece("lo"))
    model, sent = model_for(body, ndjson(done(content="x")), max_retries=3)
    with pytest.raises(StreamInterruptedError):
        await stream_chunks(model)
    assert len(sent) == 1


async def test_an_error_line_before_any_chunk_is_not_retried():
    # It carries no status: nothing says another attempt would do better.
    model, sent = model_for(ndjson({"error": "out of memory"}), ndjson(done()), max_retries=3)
    with pytest.raises(ServerError, match="out of memory"):
        await stream_chunks(model)
    assert len(sent) == 1
