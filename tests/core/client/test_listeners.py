"""Listeners and usage limits on the builder and the request: order, checks, and an
async listener awaited on the call path."""

from __future__ import annotations

import pytest

from ostinato import ChatClient
from ostinato.advisors import UsageLimits
from ostinato.context_keys import EVENT_SINK, USAGE_LIMITS
from ostinato.events import LoopEnded, RoundStarted
from ostinato.testing import ScriptedChatModel


def test_client_listeners_come_first_then_the_requests():
    order = []
    client = ChatClient.builder(ScriptedChatModel(["hi"])).listener(
        lambda e: order.append(("client", e.kind))
    )
    spec = client.build().prompt("go").listener(lambda e: order.append(("request", e.kind)))
    assert spec.call().content() == "hi"
    assert order[:2] == [("client", "round_started"), ("request", "round_started")]
    assert order[-1] == ("request", "loop_ended")


async def test_an_async_listener_is_awaited_on_the_call_path():
    seen = []

    async def listener(event):
        seen.append(type(event))

    client = ChatClient.builder(ScriptedChatModel(["hi"])).listener(listener).build()
    assert await client.prompt("go").call().acontent() == "hi"
    assert seen[0] is RoundStarted and seen[-1] is LoopEnded


def test_a_listener_must_be_callable():
    with pytest.raises(TypeError, match=r"\.listener\(\) takes a callable"):
        ChatClient.create(ScriptedChatModel()).prompt("go").listener("print")  # type: ignore[arg-type]


def test_without_listeners_no_sink_rides_in_the_request():
    spec = ChatClient.create(ScriptedChatModel()).prompt("go")
    assert EVENT_SINK not in spec.build_request().context
    assert EVENT_SINK in spec.listener(print).build_request().context


def test_the_sink_never_reaches_the_callers_response():
    spec = ChatClient.create(ScriptedChatModel(["hi"])).prompt("go").listener(print)
    assert EVENT_SINK not in spec.call().chat_client_response().context


def test_usage_limits_ride_in_the_advisor_context_and_the_request_wins():
    client = (
        ChatClient.builder(ScriptedChatModel())
        .default_usage_limits(UsageLimits(model_requests=2))
        .build()
    )
    assert client.prompt("go").build_request().context[USAGE_LIMITS] == UsageLimits(2)
    spec = client.prompt("go").usage_limits(UsageLimits(total_tokens=9))
    assert spec.build_request().context[USAGE_LIMITS] == UsageLimits(total_tokens=9)
    assert USAGE_LIMITS not in client.prompt("go").usage_limits(None).build_request().context


def test_usage_limits_are_checked():
    with pytest.raises(TypeError, match="usage limits must be a UsageLimits"):
        ChatClient.create(ScriptedChatModel()).prompt("go").usage_limits({"tokens": 3})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"UsageLimits\.total_tokens must be a positive int"):
        UsageLimits(total_tokens=0)
