"""``AnthropicSettings``: the OSTINATO_ANTHROPIC_* variables, their fallbacks, and the factory."""

from __future__ import annotations

import pytest

from ostinato_anthropic import (
    AnthropicChatOptions,
    AnthropicSettings,
    create_chat_model,
)
from tests.fakes.environment import clean_provider_environment


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    clean_provider_environment(monkeypatch, tmp_path)


def test_defaults():
    settings = AnthropicSettings()
    assert settings.api_key is None
    assert settings.base_url == "https://api.anthropic.com"
    assert settings.api_version == "2023-06-01"
    assert settings.betas == []
    assert (settings.timeout, settings.connect_timeout) == (600.0, 10.0)
    assert (settings.max_retries, settings.max_retry_time) == (2, 120.0)
    assert (settings.max_connections, settings.max_keepalive_connections) == (1000, 200)
    assert settings.model == "claude-sonnet-4-5"
    assert settings.max_tokens == 4096
    assert settings.uses_anthropic


def test_ostinato_variables(monkeypatch: pytest.MonkeyPatch):
    # (The connection variables every provider shares are checked by the provider contract.)
    values = {
        "OSTINATO_ANTHROPIC_API_KEY": "sk-ant-ost",
        "OSTINATO_ANTHROPIC_BASE_URL": "https://gateway.test/anthropic",
        "OSTINATO_ANTHROPIC_API_VERSION": "2024-01-01",
        "OSTINATO_ANTHROPIC_BETAS": "prompt-caching-2024-07-31, files-api-2025-04-14",
        "OSTINATO_ANTHROPIC_MODEL": "claude-haiku-4-5",
        "OSTINATO_ANTHROPIC_MAX_TOKENS": "8000",
        "OSTINATO_ANTHROPIC_TEMPERATURE": "0.2",
        "OSTINATO_ANTHROPIC_TOP_P": "0.9",
        "OSTINATO_ANTHROPIC_TOP_K": "40",
        "OSTINATO_ANTHROPIC_THINKING_BUDGET": "2048",
        "OSTINATO_ANTHROPIC_CACHE_SYSTEM": "true",
        "OSTINATO_ANTHROPIC_CACHE_TOOLS": "true",
        "OSTINATO_ANTHROPIC_CACHE_MESSAGES": "false",
        "OSTINATO_ANTHROPIC_CACHE_TTL": "1h",
        "OSTINATO_ANTHROPIC_EXTRA_BODY": '{"service_tier": "standard_only"}',
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings = AnthropicSettings()
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "sk-ant-ost"
    assert "sk-ant-ost" not in repr(settings)
    assert not settings.uses_anthropic
    assert settings.betas == ["prompt-caching-2024-07-31", "files-api-2025-04-14"]
    model = create_chat_model("", settings)
    assert model.base_url == "https://gateway.test/anthropic"
    assert model.default_options == AnthropicChatOptions(
        model="claude-haiku-4-5",
        max_tokens=8000,
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        thinking_budget=2048,
        cache_system=True,
        cache_tools=True,
        cache_messages=False,
        cache_ttl="1h",
        extra_body={"service_tier": "standard_only"},
    )
    assert model._headers["anthropic-version"] == "2024-01-01"  # type: ignore[attr-defined]
    assert model._betas == ("prompt-caching-2024-07-31", "files-api-2025-04-14")  # type: ignore[attr-defined]


def test_sdk_fallbacks(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-sdk")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://proxy.test")
    settings = AnthropicSettings()
    assert settings.api_key.get_secret_value() == "sk-ant-sdk"  # type: ignore[union-attr]
    assert settings.base_url == "https://proxy.test"


def test_a_gateway_model_keeps_the_required_max_tokens(monkeypatch: pytest.MonkeyPatch):
    # (That a gateway needs no key is part of the provider contract.)
    monkeypatch.setenv("OSTINATO_ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    model = create_chat_model("local")
    assert model.default_options.model == "local"
    assert model.default_options.max_tokens == 4096
    assert "x-api-key" not in model._headers  # type: ignore[attr-defined]
