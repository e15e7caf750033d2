"""The GenAI client metrics: one duration and two token measurements per model call."""

from __future__ import annotations

from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.prompt import ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response
from ostinato_opentelemetry import instrument
from tests.plugins.opentelemetry.conftest import Recorded


def _points(recorded: Recorded, name: str) -> list[Any]:
    data = recorded.reader.get_metrics_data()
    assert data is not None
    return [
        point
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == name
        for point in metric.data.data_points
    ]


def _mine(points: list[Any], model: str) -> list[Any]:
    return [p for p in points if p.attributes.get("gen_ai.request.model") == model]


def test_duration_and_token_usage_are_recorded_with_the_conventions_attributes(
    recorded: Recorded,
) -> None:
    model = ScriptedChatModel(
        [text_response("Hi", usage=(11, 3, 14), model="m-2025")],
        default_options=ToolCallingChatOptions(model="metrics-model"),
    )
    client = instrument(ChatClient.builder(model), provider_name="openai").build()

    client.prompt("Hello").call().content()

    [duration] = _mine(_points(recorded, "gen_ai.client.operation.duration"), "metrics-model")
    assert dict(duration.attributes) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "metrics-model",
        "gen_ai.response.model": "m-2025",
    }
    assert duration.count == 1 and duration.sum >= 0
    tokens = _mine(_points(recorded, "gen_ai.client.token.usage"), "metrics-model")
    assert sorted((p.attributes["gen_ai.token.type"], p.sum) for p in tokens) == [
        ("input", 11),
        ("output", 3),
    ]


def test_a_failed_call_is_measured_with_its_error_type(recorded: Recorded) -> None:
    model = ScriptedChatModel(
        [TimeoutError("slow")], default_options=ToolCallingChatOptions(model="failing-model")
    )
    client = instrument(ChatClient.builder(model), provider_name="openai").build()

    with pytest.raises(TimeoutError):
        client.prompt("Hello").call().content()

    [duration] = _mine(_points(recorded, "gen_ai.client.operation.duration"), "failing-model")
    assert duration.attributes["error.type"] == "TimeoutError"
    assert _mine(_points(recorded, "gen_ai.client.token.usage"), "failing-model") == []
