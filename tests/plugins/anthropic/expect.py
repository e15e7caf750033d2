"""The replay driver of the Messages API wire tests, and their field-by-field checks."""

from __future__ import annotations

import httpx

from tests.fakes.wire import Exchange
from tests.plugins.anthropic.wire import API_KEY, recorded_prompt, replay_model
from tests.plugins.recorded_replay import ReplayDriver, expect_response

__all__ = ["check_request", "expect_response", "replay", "replay_chunks"]


def _api_headers(exchange: Exchange, request: httpx.Request) -> None:
    assert request.headers["x-api-key"] == API_KEY
    recorded_version = exchange.request["headers"].get("anthropic-version", "2023-06-01")
    assert request.headers["anthropic-version"] == recorded_version
    assert "authorization" not in request.headers


DRIVER = ReplayDriver(replay_model, recorded_prompt, _api_headers)
replay, replay_chunks, check_request = DRIVER.replay, DRIVER.replay_chunks, DRIVER.check_request
