"""The replay driver of the Chat Completions wire tests, and their field-by-field checks."""

from __future__ import annotations

import httpx

from tests.fakes.wire import Exchange
from tests.plugins.openai.wire import recorded_prompt, replay_model
from tests.plugins.recorded_replay import ReplayDriver, expect_response

__all__ = ["check_request", "expect_response", "replay", "replay_chunks"]


def _bearer_key(exchange: Exchange, request: httpx.Request) -> None:
    assert request.headers["authorization"] == "Bearer sk-wire-test"


DRIVER = ReplayDriver(replay_model, recorded_prompt, _bearer_key)
replay, replay_chunks, check_request = DRIVER.replay, DRIVER.replay_chunks, DRIVER.check_request
