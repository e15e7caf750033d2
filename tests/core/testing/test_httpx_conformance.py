"""``HttpxModelHooks``: the conformance kit builds an httpx-backed model from declarations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from ostinato.errors import ModelError
from ostinato.http import ErrorReport, EventParser, HttpxChatModel, WireContext
from ostinato.messages import UserMessage
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing.conformance import HttpxModelHooks


class KitWire:
    """The wire format of :class:`KitModel`: a body, and every error read as its fallback."""

    def __init__(self, context: WireContext[ToolCallingChatOptions]) -> None:
        self.context = context

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        return {"messages": len(prompt.messages), "stream": stream}

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        raise AssertionError("never read: every attempt fails")

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> EventParser:
        raise AssertionError("never read: every attempt fails")

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        return ErrorReport(fallback or "", status)


class KitModel(HttpxChatModel[ToolCallingChatOptions]):
    """A model the hooks build (its replies are never read: every attempt fails)."""

    provider = "kit"
    default_base_url = "https://api.kit.example"
    path = "/chat"
    wire_format = KitWire


class KitHooks(HttpxModelHooks):
    model_class = KitModel
    base_url = "https://conformance.test/v2"
    live_model_name = "kit-small"


class KeyHooks(KitHooks):
    live_requires = "API_KEY"


@pytest.fixture(autouse=True)
def no_live_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BASE_URL", "MODEL", "API_KEY"):
        monkeypatch.delenv(f"LIVE_KIT_{name}", raising=False)


async def test_build_model_sends_through_the_transport_and_retries_without_sleeping() -> None:
    attempts: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        attempts.append(request)
        return httpx.Response(503)

    model = KitHooks().build_model(httpx.MockTransport(handler), api_key="k", max_retries=2)
    assert isinstance(model, KitModel)
    assert model.default_options.model == "conformance-model"
    assert model.base_url == "https://conformance.test/v2"
    assert model.retry_policy.max_retries == 2
    assert model._headers["authorization"] == "Bearer k"
    with pytest.raises(ModelError):
        await model.call(Prompt([UserMessage("hi")]))
    assert len(attempts) == 3  # through the transport, retried twice at once
    assert attempts[0].url == "https://conformance.test/v2/chat"


def test_no_live_model_without_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert KitHooks().live_model() is None
    monkeypatch.setenv("LIVE_KIT_API_KEY", "k")
    assert KitHooks().live_model() is None  # BASE_URL is the one required
    assert HttpxModelHooks().live_model() is None  # no prefix declared


def test_the_live_model_reads_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIVE_KIT_BASE_URL", "http://localhost:9")
    model = KitHooks().live_model()
    assert isinstance(model, KitModel)
    assert (model.base_url, model.default_options.model) == ("http://localhost:9", "kit-small")
    assert "authorization" not in model._headers
    monkeypatch.setenv("LIVE_KIT_MODEL", "kit-large")
    monkeypatch.setenv("LIVE_KIT_API_KEY", "secret")
    model = KitHooks().live_model()
    assert isinstance(model, KitModel)
    assert model.default_options.model == "kit-large"
    assert model._headers["authorization"] == "Bearer secret"


def test_a_provider_with_a_public_endpoint_needs_only_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert KeyHooks().live_model() is None
    monkeypatch.setenv("LIVE_KIT_API_KEY", "secret")
    model = KeyHooks().live_model()
    assert isinstance(model, KitModel)
    assert model.base_url == "https://api.kit.example"  # the model's own default


def test_the_provider_and_the_live_prefix_come_from_the_model_class() -> None:
    assert (KitHooks.provider, KitHooks.live_prefix) == ("kit", "LIVE_KIT")

    class Renamed(KitHooks):
        provider = "other"

    assert (Renamed.provider, Renamed.live_prefix) == ("other", "LIVE_KIT")  # inherited
