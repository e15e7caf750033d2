"""Retries made visible: each HTTP attempt of a model call is an HTTP CLIENT span under
its ``chat`` span, which stands for the whole call (and learns ``server.address``)."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any

import pytest
from opentelemetry import trace

from ostinato import ChatClient
from ostinato.errors import ServerError
from ostinato_opentelemetry import OpenTelemetrySettings, instrument
from tests.plugins.openai.fakes import model_for, status_reply
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import by_name, tree

_USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


def _client(*statuses: int, **settings: Any) -> ChatClient:
    model, _ = model_for(
        *(status_reply(s, "Hi!", model="gpt-x-2025", usage=_USAGE) for s in statuses),
        model="gpt-x",
        api_key="sk-http-span-secret",
        base_url="https://llm.example.test:8443/v1",
        max_retries=2,
    )
    options = OpenTelemetrySettings(**settings)
    return instrument(ChatClient.builder(model), provider_name="openai", settings=options).build()


_RETRIED = [
    (
        "invoke_agent",
        "INTERNAL",
        [("chat gpt-x", "CLIENT", [("POST", "CLIENT", []), ("POST", "CLIENT", [])])],
    )
]
_URL = "https://llm.example.test:8443/v1/chat/completions"


def _check_attempts(recorded: Recorded) -> None:
    spans = recorded.spans()
    assert tree(spans) == _RETRIED
    failed, succeeded = by_name(spans, "POST")
    assert dict(failed.attributes or {}) == {
        "http.request.method": "POST",
        "server.address": "llm.example.test",
        "server.port": 8443,
        "url.full": _URL,
        "http.response.status_code": 503,
        "error.type": "503",
    }
    assert failed.status.status_code is trace.StatusCode.ERROR
    assert dict(succeeded.attributes or {}) == {
        "http.request.method": "POST",
        "server.address": "llm.example.test",
        "server.port": 8443,
        "url.full": _URL,
        "http.request.resend_count": 1,
        "http.response.status_code": 200,
    }
    assert succeeded.status.status_code is trace.StatusCode.UNSET
    [chat] = by_name(spans, "chat gpt-x")
    attributes = chat.attributes or {}
    assert (attributes["server.address"], attributes["server.port"]) == ("llm.example.test", 8443)
    assert "error.type" not in attributes
    assert chat.status.status_code is trace.StatusCode.UNSET


def test_a_retried_call_has_one_http_span_per_attempt(recorded: Recorded) -> None:
    assert _client(503, 200).prompt("Hi").call().content() == "Hi!"

    _check_attempts(recorded)


async def test_a_retried_stream_has_one_http_span_per_attempt(recorded: Recorded) -> None:
    stream = _client(503, 200).prompt("Hi").stream().acontent()
    async with aclosing(stream) as pieces:  # type: ignore[type-var]
        assert "".join([p async for p in pieces]) == "Hi!"

    _check_attempts(recorded)


def test_a_call_that_fails_after_its_retries_marks_every_span(recorded: Recorded) -> None:
    with pytest.raises(ServerError):
        _client(500, 502, 503).prompt("Hi").call().content()

    spans = recorded.spans()
    assert [s.name for s in by_name(spans, "POST")] == ["POST"] * 3
    assert [(s.attributes or {})["error.type"] for s in by_name(spans, "POST")] == [
        "500",
        "502",
        "503",
    ]
    assert [
        (s.attributes or {}).get("http.request.resend_count") for s in by_name(spans, "POST")
    ] == [
        None,
        1,
        2,
    ]
    [chat] = by_name(spans, "chat gpt-x")
    assert (chat.attributes or {})["error.type"] == "ServerError"
    [turn] = by_name(spans, "invoke_agent")
    assert turn.status.status_code is trace.StatusCode.ERROR


def test_http_spans_can_be_turned_off_and_the_chat_span_keeps_the_server(
    recorded: Recorded,
) -> None:
    assert _client(503, 200, http_spans=False).prompt("Hi").call().content() == "Hi!"

    spans = recorded.spans()
    assert tree(spans) == [("invoke_agent", "INTERNAL", [("chat gpt-x", "CLIENT", [])])]
    [chat] = by_name(spans, "chat gpt-x")
    assert (chat.attributes or {})["server.address"] == "llm.example.test"


def test_no_credential_reaches_an_http_span(recorded: Recorded) -> None:
    _client(503, 200).prompt("Hi").call().content()

    for span in recorded.spans():
        assert "sk-http-span-secret" not in str(dict(span.attributes or {}))


def test_the_http_dup_opt_in_adds_the_old_attribute_names(
    recorded: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental,http/dup")

    _client(200).prompt("Hi").call().content()

    [attempt] = by_name(recorded.spans(), "POST")
    attributes = attempt.attributes or {}
    assert (attributes["http.request.method"], attributes["http.method"]) == ("POST", "POST")
    assert (attributes["url.full"], attributes["http.url"]) == (_URL, _URL)
    assert (attributes["net.peer.name"], attributes["net.peer.port"]) == ("llm.example.test", 8443)
    assert (attributes["http.response.status_code"], attributes["http.status_code"]) == (200, 200)


def test_the_duration_metric_carries_the_server(recorded: Recorded) -> None:
    _client(200).prompt("Hi").call().content()

    data = recorded.reader.get_metrics_data()
    assert data is not None
    points = [
        point
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "gen_ai.client.operation.duration"
        for point in metric.data.data_points
        if point.attributes.get("server.address") == "llm.example.test"
    ]
    # The reader accumulates over the module's tests (failed calls have an error.type).
    assert {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-x",
        "gen_ai.response.model": "gpt-x-2025",
        "server.address": "llm.example.test",
        "server.port": 8443,
    } in [dict(p.attributes) for p in points]
