"""``OpenAISettings``: the OSTINATO_OPENAI_* variables, their fallbacks, and the factory."""

from __future__ import annotations

import httpx
import pytest

from ostinato_openai import OpenAIChatOptions, OpenAISettings, create_chat_model

ALL_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    import os

    for name in list(os.environ):
        if name.startswith("OSTINATO_") or name in ALL_VARIABLES:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env from the developer's checkout


def test_defaults():
    settings = OpenAISettings()
    assert settings.api_key is None
    assert settings.base_url == "https://api.openai.com/v1"
    assert (settings.timeout, settings.connect_timeout) == (600.0, 10.0)
    assert (settings.max_retries, settings.max_retry_time) == (2, 120.0)
    assert (settings.max_connections, settings.max_keepalive_connections) == (1000, 200)
    assert settings.model == "gpt-4.1-mini"
    assert settings.stream_usage is True
    assert settings.system_role == "system"
    assert settings.uses_openai


def test_ostinato_variables(monkeypatch: pytest.MonkeyPatch):
    values = {
        "OSTINATO_OPENAI_API_KEY": "sk-ost",
        "OSTINATO_OPENAI_BASE_URL": "http://localhost:11434/v1",
        "OSTINATO_OPENAI_ORGANIZATION": "org",
        "OSTINATO_OPENAI_PROJECT": "proj",
        "OSTINATO_OPENAI_TIMEOUT": "30",
        "OSTINATO_OPENAI_CONNECT_TIMEOUT": "2",
        "OSTINATO_OPENAI_MAX_RETRIES": "5",
        "OSTINATO_OPENAI_MAX_RETRY_TIME": "10",
        "OSTINATO_OPENAI_MAX_CONNECTIONS": "50",
        "OSTINATO_OPENAI_MAX_KEEPALIVE_CONNECTIONS": "5",
        "OSTINATO_OPENAI_EXTRA_HEADERS": '{"X-Team": "a"}',
        "OSTINATO_OPENAI_EXTRA_QUERY": '{"api-version": "2024-05-01-preview"}',
        "OSTINATO_OPENAI_MODEL": "qwen3",
        "OSTINATO_OPENAI_TEMPERATURE": "0.2",
        "OSTINATO_OPENAI_TOP_P": "0.9",
        "OSTINATO_OPENAI_MAX_TOKENS": "100",
        "OSTINATO_OPENAI_MAX_COMPLETION_TOKENS": "200",
        "OSTINATO_OPENAI_SEED": "7",
        "OSTINATO_OPENAI_REASONING_EFFORT": "low",
        "OSTINATO_OPENAI_PARALLEL_TOOL_CALLS": "false",
        "OSTINATO_OPENAI_STRICT_TOOLS": "true",
        "OSTINATO_OPENAI_STREAM_USAGE": "false",
        "OSTINATO_OPENAI_SYSTEM_ROLE": "developer",
        "OSTINATO_OPENAI_EXTRA_BODY": '{"enable_thinking": false}',
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings = OpenAISettings()
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "sk-ost"
    assert "sk-ost" not in repr(settings)
    assert not settings.uses_openai
    assert settings.extra_headers == {"X-Team": "a"}
    assert settings.extra_query == {"api-version": "2024-05-01-preview"}
    model = create_chat_model("", settings)
    assert model.base_url == "http://localhost:11434/v1"
    assert model.default_options == OpenAIChatOptions(
        model="qwen3",
        temperature=0.2,
        top_p=0.9,
        max_tokens=100,
        max_completion_tokens=200,
        seed=7,
        reasoning_effort="low",
        parallel_tool_calls=False,
        strict_tools=True,
        stream_usage=False,
        system_role="developer",
        extra_body={"enable_thinking": False},
    )
    assert model.retry_policy.max_retries == 5
    assert model.retry_policy.max_total_time == 10
    assert model._timeout == httpx.Timeout(30, connect=2)  # type: ignore[attr-defined]
    assert model._limits.max_connections == 50  # type: ignore[attr-defined]
    assert model._params == {"api-version": "2024-05-01-preview"}  # type: ignore[attr-defined]
    assert model._headers["x-team"] == "a"  # type: ignore[attr-defined]
    assert model._headers["openai-organization"] == "org"  # type: ignore[attr-defined]


def test_ecosystem_fallbacks(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-eco")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://openrouter.ai/api/v1")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-eco")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-eco")
    settings = OpenAISettings()
    assert settings.api_key.get_secret_value() == "sk-eco"  # type: ignore[union-attr]
    assert (settings.base_url, settings.organization, settings.project) == (
        "https://openrouter.ai/api/v1",
        "org-eco",
        "proj-eco",
    )
