"""``ProviderSettings``: the connection settings of every provider, their variables and checks."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest
from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.config import load_settings
from ostinato.errors import ConfigurationError
from ostinato.http import (
    DEFAULT_CALL_DEADLINE,
    DEFAULT_FIRST_EVENT_TIMEOUT,
    ChatProviderSettings,
    ProviderSettings,
    connection_arguments,
    model_factory,
    provider_env,
)
from ostinato.transport import DEFAULT_MAX_RESPONSE_BYTES, RetryPolicy


class DemoSettings(ProviderSettings):
    """A provider's settings as a plugin writes them."""

    provider = "demo"
    key_required_at = "api.demo.example"
    model_config = SettingsConfigDict(env_prefix="OSTINATO_DEMO_", env_file=None)

    api_key: SecretStr | None = Field(
        default=None, validation_alias=provider_env("OSTINATO_DEMO_", "api_key", "DEMO_API_KEY")
    )
    base_url: str = Field(
        default="https://api.demo.example/v1",
        validation_alias=provider_env("OSTINATO_DEMO_", "base_url", "DEMO_BASE_URL"),
    )


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OSTINATO_DEMO_API_KEY",
        "DEMO_API_KEY",
        "OSTINATO_DEMO_BASE_URL",
        "DEMO_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def test_defaults() -> None:
    settings = DemoSettings(api_key="k")
    assert (settings.timeout, settings.connect_timeout) == (600.0, 10.0)
    assert (settings.max_retries, settings.max_retry_time) == (2, 120.0)
    assert (settings.max_connections, settings.max_keepalive_connections) == (1000, 200)
    assert settings.extra_headers == settings.extra_query == {}
    assert settings.max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES
    assert settings.call_deadline == DEFAULT_CALL_DEADLINE == 1200.0
    assert settings.first_event_timeout == DEFAULT_FIRST_EVENT_TIMEOUT == 600.0


def test_the_prefix_and_the_fallbacks_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_API_KEY", "from-fallback")
    monkeypatch.setenv("OSTINATO_DEMO_CALL_DEADLINE", "30")
    monkeypatch.setenv("OSTINATO_DEMO_FIRST_EVENT_TIMEOUT", "5")
    monkeypatch.setenv("OSTINATO_DEMO_MAX_RESPONSE_BYTES", "1000")
    settings = load_settings(DemoSettings)
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "from-fallback"
    assert (settings.call_deadline, settings.first_event_timeout) == (30.0, 5.0)
    assert settings.max_response_bytes == 1000


@pytest.mark.parametrize("value", ["not-a-url", "ftp://x", "http://"])
def test_a_bad_base_url_is_refused_when_the_settings_load(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("OSTINATO_DEMO_BASE_URL", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings(DemoSettings)
    message = str(caught.value)
    assert "expected http(s)://host[:port][/path] in OSTINATO_DEMO_BASE_URL" in message
    assert repr(value) in message


def test_a_password_in_a_bad_base_url_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_BASE_URL", "ftp://me:hunter2@host/v1")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(DemoSettings)
    assert "hunter2" not in str(caught.value)
    assert "ftp://me:***@host/v1" in str(caught.value)


@pytest.mark.parametrize("name", ["CALL_DEADLINE", "FIRST_EVENT_TIMEOUT", "MAX_RESPONSE_BYTES"])
def test_bounds_must_be_positive(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(f"OSTINATO_DEMO_{name}", "0")
    with pytest.raises(ConfigurationError, match=f"OSTINATO_DEMO_{name}='0'"):
        load_settings(DemoSettings)


def test_resolve_requires_a_key_for_the_providers_own_host() -> None:
    with pytest.raises(ConfigurationError) as caught:
        DemoSettings.resolve(DemoSettings())
    assert str(caught.value) == (
        "the demo provider needs an API key for https://api.demo.example/v1\n"
        "fix: set OSTINATO_DEMO_API_KEY (or DEMO_API_KEY), or point OSTINATO_DEMO_BASE_URL "
        "at a server that needs none"
    )
    elsewhere = DemoSettings(base_url="http://localhost:1234")
    assert DemoSettings.resolve(elsewhere) is elsewhere


def test_resolve_loads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSTINATO_DEMO_API_KEY", "k")
    assert DemoSettings.resolve().api_key is not None


def test_connection_arguments() -> None:
    settings = DemoSettings(
        api_key="k",
        timeout=7,
        connect_timeout=2,
        max_retries=4,
        max_retry_time=9,
        max_connections=5,
        max_keepalive_connections=3,
        extra_headers={"x-a": "1"},
        extra_query={"v": "2"},
        max_response_bytes=100,
        call_deadline=11,
        first_event_timeout=12,
    )
    arguments = connection_arguments(settings)
    assert arguments["api_key"] == settings.api_key
    assert arguments["timeout"] == httpx.Timeout(7, connect=2)
    assert arguments["retry_policy"] == RetryPolicy(max_retries=4, max_total_time=9)
    limits = arguments["limits"]
    assert limits is not None
    assert (limits.max_connections, limits.max_keepalive_connections) == (5, 3)
    assert arguments["extra_headers"] == {"x-a": "1"}
    assert arguments["extra_query"] == {"v": "2"}
    assert arguments["max_response_bytes"] == 100
    assert (arguments["call_deadline"], arguments["first_event_timeout"]) == (11, 12)
    policy = RetryPolicy(max_retries=0)
    assert connection_arguments(settings, policy)["retry_policy"] is policy


@dataclasses.dataclass(frozen=True)
class DemoOptions:
    model: str | None = None
    timeout: float | None = None  # named like a settings field: taken from it
    tags: tuple[str, ...] = ()


class DemoModel:
    def __init__(self, *, model: str | None = None, base_url: str = "", **rest: Any) -> None:
        self.base_url = base_url
        self.rest = rest


def test_model_factory_builds_the_model_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    create = model_factory(DemoModel, DemoSettings, DemoOptions)
    settings = DemoSettings(api_key="k", max_retries=4, timeout=7)
    model = create("big", settings)
    assert model.base_url == "https://api.demo.example/v1"
    assert model.rest["default_options"] == DemoOptions(model="big", timeout=7)
    assert model.rest["api_key"] == settings.api_key
    assert model.rest["retry_policy"] == RetryPolicy(max_retries=4, max_total_time=120.0)
    assert "model" not in model.rest
    policy = RetryPolicy(max_retries=0)
    default = create(settings=settings, retry_policy=policy)
    assert default.rest["default_options"] == DemoOptions(timeout=7)
    assert default.rest["retry_policy"] is policy
    assert "DemoModel" in (create.__doc__ or "") and "DemoSettings" in (create.__doc__ or "")

    monkeypatch.setenv("OSTINATO_DEMO_BASE_URL", "http://localhost:9")
    tagged = model_factory(DemoModel, DemoSettings, DemoOptions, lambda s: {"tags": ("t",)})()
    assert tagged.base_url == "http://localhost:9"
    assert tagged.rest["default_options"] == DemoOptions(timeout=600, tags=("t",))


def test_chat_provider_settings_add_the_options_every_chat_api_takes() -> None:
    settings = ChatProviderSettings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.temperature, settings.top_p, settings.max_tokens) == (None, None, None)
    assert settings.extra_body == {}
    assert ChatProviderSettings(temperature=1.5, top_p=1, max_tokens=1).temperature == 1.5
    for bad in ({"temperature": -0.1}, {"top_p": 1.1}, {"max_tokens": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ChatProviderSettings(**bad)
