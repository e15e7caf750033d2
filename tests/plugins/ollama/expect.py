"""Field-by-field assertions on a parsed response, and the replay driver the wire tests use."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ostinato.model import ChatResponse
from tests.fakes.replay import answer, stream_all
from tests.plugins.ollama.wire import Exchange, expected_body, recorded_prompt, replay_model

__all__ = ["check_request", "expect_response", "replay", "replay_chunks"]


async def replay_chunks(exchange: Exchange, *, piece_size: int | None = None) -> list[ChatResponse]:
    """Stream the recorded exchange; the chunks."""
    model, sent = replay_model(exchange, piece_size=piece_size)
    chunks = await stream_all(model, recorded_prompt(exchange.request["body"]))
    assert len(sent) == 1
    check_request(exchange, sent[0])
    return chunks


async def replay(
    exchange: Exchange, *, piece_size: int | None = None, mode: str | None = None
) -> ChatResponse:
    """Replay through ``stream()`` or ``call()`` (as recorded, unless ``mode`` says);
    check the request sent. It must be the recorded one (``stream`` aside, when ``mode``
    asks for the other way)."""
    model, sent = replay_model(exchange, piece_size=piece_size)
    prompt = recorded_prompt(exchange.request["body"])
    stream = exchange.is_stream if mode is None else mode == "stream"
    try:
        return await answer(model, prompt, stream=stream)
    finally:
        if sent:
            check_request(exchange, sent[0], stream=stream)


def check_request(
    exchange: Exchange, request: httpx.Request, *, stream: bool | None = None
) -> None:
    """The adapter sent the recorded body to ``/api/chat``, with the key where one is due."""
    expected = expected_body(exchange)
    if stream is not None:
        expected["stream"] = stream
    assert json.loads(request.content) == expected
    assert request.method == "POST"
    assert request.url.path == exchange.request["path"] == "/api/chat"
    assert request.headers["content-type"] == "application/json"
    if exchange.is_cloud:
        assert request.headers["authorization"] == "Bearer ollama-wire-key"
    else:
        assert "authorization" not in request.headers


def expect_response(
    response: ChatResponse,
    *,
    text: str | None,
    calls: Sequence[tuple[str, str, Any]] = (),
    finish: str,
    raw_finish: str,
    usage: tuple[int, int, int],
    model: str,
    created_at: str,
    reasoning: str | None = None,
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
    assert dict(output.metadata) == ({"reasoning": reasoning} if reasoning is not None else {})
    assert generation.metadata.finish_reason == finish
    assert dict(generation.metadata.metadata) == {"finish_reason_raw": raw_finish}
    u = response.usage
    assert (u.prompt_tokens, u.completion_tokens, u.total_tokens) == usage
    assert (u.cache_read_input_tokens, u.cache_write_input_tokens) == (None, None)
    if native_usage is not None:
        assert u.native_usage == native_usage
    assert response.metadata.id == ""  # Ollama's replies have none
    assert response.metadata.model == model
    assert dict(response.metadata.metadata) == {"created_at": created_at}
    assert dict(response.metadata.rate_limit) == {}
