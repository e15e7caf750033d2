"""Field-by-field assertions on a parsed response, and the replay driver the wire tests use."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ostinato.model import ChatResponse
from tests.fakes.replay import answer, stream_all
from tests.plugins.anthropic.wire import API_KEY, Exchange, recorded_prompt, replay_model

__all__ = ["check_request", "expect_response", "replay", "replay_chunks"]


async def replay_chunks(
    exchange: Exchange, *, piece_size: int | None = None
) -> tuple[list[ChatResponse], Any]:
    """Stream the recorded exchange; the chunks and the body the adapter sent."""
    model, sent = replay_model(exchange, piece_size=piece_size)
    chunks = await stream_all(model, recorded_prompt(exchange.request["body"]))
    assert len(sent) == 1
    check_request(exchange, sent[0])
    return chunks, json.loads(sent[0].content)


async def replay(exchange: Exchange, *, piece_size: int | None = None) -> ChatResponse:
    """Replay through ``call()`` or ``stream()`` (as recorded); check the request sent.

    The request must be exactly the recorded one: same body, path and query.
    """
    model, sent = replay_model(exchange, piece_size=piece_size)
    prompt = recorded_prompt(exchange.request["body"])
    try:
        return await answer(model, prompt, stream=exchange.is_stream)
    finally:
        if sent:
            check_request(exchange, sent[0])


def check_request(exchange: Exchange, request: httpx.Request) -> None:
    """The adapter sent the recorded body to the recorded path, with the API's headers."""
    assert json.loads(request.content) == exchange.request["body"]
    assert request.method == "POST"
    assert request.url.path == exchange.request["path"].split("?")[0]
    assert dict(request.url.params) == exchange.query
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-api-key"] == API_KEY
    recorded_version = exchange.request["headers"].get("anthropic-version", "2023-06-01")
    assert request.headers["anthropic-version"] == recorded_version
    assert "authorization" not in request.headers


def expect_response(
    response: ChatResponse,
    *,
    text: str | None,
    calls: Sequence[tuple[str, str, Any]] = (),
    finish: str,
    raw_finish: str,
    usage: tuple[int, int, int, int | None, int | None],
    id: str,
    model: str,
    rate_limit: Mapping[str, Any] | None = None,
    message_metadata: Mapping[str, Any] | None = None,
    generation_metadata: Mapping[str, Any] | None = None,
    native_usage: Mapping[str, Any] | None = None,
) -> None:
    """Assert every normalised field of a one-generation response."""
    assert len(response.generations) == 1
    generation = response.generations[0]
    output = generation.output
    assert output.text == text
    got_calls = [(c.id, c.name, json.loads(c.arguments)) for c in output.tool_calls]
    assert got_calls == [(i, n, a) for i, n, a in calls]
    assert all(c.type == "function" and c.index is None for c in output.tool_calls)
    assert dict(output.metadata) == dict(message_metadata or {})
    assert generation.metadata.finish_reason == finish
    assert dict(generation.metadata.metadata) == {
        "finish_reason_raw": raw_finish,
        **(generation_metadata or {}),
    }
    assert generation.metadata.content_filters == frozenset()
    u = response.usage
    assert (
        u.prompt_tokens,
        u.completion_tokens,
        u.total_tokens,
        u.cache_read_input_tokens,
        u.cache_write_input_tokens,
    ) == usage
    if native_usage is not None:
        assert u.native_usage == native_usage
    assert response.metadata.id == id
    assert response.metadata.model == model
    assert dict(response.metadata.metadata) == {}  # the recordings kept no request id
    assert dict(response.metadata.rate_limit) == dict(rate_limit or {})
