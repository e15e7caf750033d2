"""What every HTTP provider plugin (openai, anthropic, ollama) promises, checked the same way.

Parametrised over the adapters: their settings share the connection variables of
:class:`~ostinato.http.ProviderSettings` under their own prefix, refuse a bad base URL
when they load (naming the variable, a password masked), and their factory passes every
connection setting on to the model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ostinato.config import load_settings
from ostinato.errors import ConfigurationError
from ostinato.http import HttpxChatModel, ProviderSettings
from ostinato_anthropic import AnthropicSettings
from ostinato_anthropic import create_chat_model as anthropic_model
from ostinato_ollama import OllamaSettings
from ostinato_ollama import create_chat_model as ollama_model
from ostinato_openai import OpenAISettings
from ostinato_openai import create_chat_model as openai_model


@dataclass(frozen=True)
class Provider:
    """One provider plugin as the contract drives it."""

    name: str
    settings: type[ProviderSettings]
    create: Callable[..., HttpxChatModel[Any]]
    fallbacks: tuple[str, ...]  # the ecosystem's variables it also reads

    @property
    def prefix(self) -> str:
        return f"OSTINATO_{self.name.upper()}_"


PROVIDERS = [
    Provider("openai", OpenAISettings, openai_model, ("OPENAI_BASE_URL", "OPENAI_API_KEY")),
    Provider(
        "anthropic", AnthropicSettings, anthropic_model, ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")
    ),
    Provider("ollama", OllamaSettings, ollama_model, ("OLLAMA_HOST", "OLLAMA_API_KEY")),
]


@pytest.fixture(params=PROVIDERS, ids=[p.name for p in PROVIDERS])
def provider(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> Provider:
    chosen: Provider = request.param
    for name in list(os.environ):
        if name.startswith("OSTINATO_") or name in chosen.fallbacks:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env from the developer's checkout
    return chosen


CONNECTION_VARIABLES = [
    "API_KEY",
    "BASE_URL",
    "TIMEOUT",
    "CONNECT_TIMEOUT",
    "MAX_RETRIES",
    "MAX_RETRY_TIME",
    "MAX_CONNECTIONS",
    "MAX_KEEPALIVE_CONNECTIONS",
    "EXTRA_HEADERS",
    "EXTRA_QUERY",
    "MAX_RESPONSE_BYTES",
    "CALL_DEADLINE",
    "FIRST_EVENT_TIMEOUT",
]


def test_the_settings_extend_provider_settings(provider: Provider) -> None:
    assert issubclass(provider.settings, ProviderSettings)
    assert provider.settings.model_config.get("env_prefix") == provider.prefix


@pytest.mark.parametrize("name", CONNECTION_VARIABLES)
def test_every_connection_variable_is_read(provider: Provider, name: str) -> None:
    from ostinato.config import setting_fields

    names = {n for f in setting_fields(provider.settings) for n in f.env_names}
    assert provider.prefix + name in names


@pytest.mark.parametrize("value", ["ftp://x", "http://host:port"])
def test_a_bad_base_url_is_refused_when_the_settings_load(
    provider: Provider, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(provider.prefix + "BASE_URL", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings(provider.settings)
    message = str(caught.value)
    assert f"expected http(s)://host[:port][/path] in {provider.prefix}BASE_URL" in message
    assert repr(value) in message


def test_the_fallback_base_url_is_checked_too_its_password_masked(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(provider.fallbacks[0], "ftp://me:hunter2@host:21/v1")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(provider.settings)
    assert "hunter2" not in str(caught.value)
    # Ollama reads OLLAMA_HOST as the ollama command does: without the userinfo.
    shown = "ftp://host:21/v1" if provider.name == "ollama" else "ftp://me:***@host:21/v1"
    assert repr(shown) in str(caught.value)


@pytest.mark.parametrize("value", ["not-a-url", "http://", "https://"])
def test_a_value_that_is_no_url_is_refused_except_by_ollama_which_reads_a_host(
    provider: Provider, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(provider.prefix + "BASE_URL", value)
    if provider.name == "ollama":
        # OLLAMA_HOST's rules: a bare name is a host, no host is this machine.
        assert load_settings(provider.settings).base_url.startswith("http://")
        return
    with pytest.raises(ConfigurationError, match=f"in {provider.prefix}BASE_URL, got {value!r}"):
        load_settings(provider.settings)


def test_the_model_refuses_a_bad_base_url_too(provider: Provider) -> None:
    settings = provider.settings.model_construct(base_url="ftp://x", api_key=None)
    with pytest.raises(ConfigurationError, match="base_url='ftp://x' is not a usable base URL"):
        provider.create("m", settings)


def test_the_factory_passes_every_connection_setting_on(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = {
        "API_KEY": "sk-contract",
        "BASE_URL": "http://127.0.0.1:9/root",
        "TIMEOUT": "7",
        "CONNECT_TIMEOUT": "2",
        "MAX_RETRIES": "4",
        "MAX_RETRY_TIME": "9",
        "MAX_CONNECTIONS": "5",
        "MAX_KEEPALIVE_CONNECTIONS": "3",
        "EXTRA_HEADERS": '{"X-Team": "a"}',
        "EXTRA_QUERY": '{"v": "2"}',
        "MAX_RESPONSE_BYTES": "1000",
        "CALL_DEADLINE": "11",
        "FIRST_EVENT_TIMEOUT": "12",
    }
    for name, value in values.items():
        monkeypatch.setenv(provider.prefix + name, value)
    model = provider.create("m")
    assert model.base_url == "http://127.0.0.1:9/root"
    assert model.retry_policy.max_retries == 4
    assert model.retry_policy.max_total_time == 9
    assert model.max_response_bytes == 1000
    assert model._timeout == httpx.Timeout(7, connect=2)
    assert (model._limits.max_connections, model._limits.max_keepalive_connections) == (5, 3)
    assert model._headers["x-team"] == "a"
    assert model._params == {"v": "2"}
    assert (model._call_deadline, model._first_event_timeout) == (11.0, 12.0)
    assert model._api_key == "sk-contract"
