"""The replay driver of the ``/api/chat`` wire tests, and their field-by-field checks."""

from __future__ import annotations

from typing import Any

import httpx

from ostinato.model import ChatResponse
from tests.plugins import recorded_replay
from tests.plugins.ollama.wire import Exchange, expected_body, recorded_prompt, replay_model
from tests.plugins.recorded_replay import ReplayDriver

__all__ = ["check_request", "expect_response", "replay", "replay_chunks"]


def _path_and_key(exchange: Exchange, request: httpx.Request) -> None:
    assert request.url.path == exchange.request["path"] == "/api/chat"
    if exchange.is_cloud:
        assert request.headers["authorization"] == "Bearer ollama-wire-key"
    else:
        assert "authorization" not in request.headers


DRIVER = ReplayDriver(replay_model, recorded_prompt, _path_and_key, expected_body)
replay, replay_chunks, check_request = DRIVER.replay, DRIVER.replay_chunks, DRIVER.check_request


def expect_response(response: ChatResponse, *, created_at: str, **fields: Any) -> None:
    """:func:`~tests.plugins.recorded_replay.expect_response` for Ollama, whose replies
    carry no id and their ``created_at`` as metadata."""
    recorded_replay.expect_response(response, id="", metadata={"created_at": created_at}, **fields)
