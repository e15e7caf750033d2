"""``OpenAISettings``: the OSTINATO_OPENAI_* variables, their fallbacks, and the factory."""

from __future__ import annotations

import pytest

from ostinato_openai import OpenAIChatOptions, OpenAISettings, create_chat_model
from tests.fakes.environment import clean_provider_environment


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path):
    clean_provider_environment(monkeypatch, tmp_path)


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
    # (The connection variables every provider shares are checked by the provider contract.)
    values = {
        "OSTINATO_OPENAI_API_KEY": "sk-ost",
        "OSTINATO_OPENAI_BASE_URL": "http://localhost:11434/v1",
        "OSTINATO_OPENAI_ORGANIZATION": "org",
        "OSTINATO_OPENAI_PROJECT": "proj",
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
