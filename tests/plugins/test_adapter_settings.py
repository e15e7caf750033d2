"""Each HTTP adapter's settings: their defaults, every variable of their own, and the fallbacks.

Parametrised over the adapters. Every ``OSTINATO_<PROVIDER>_*`` variable an adapter adds
to the connection ones is set at once; the settings load them (the key never shown) and
the factory builds a model with exactly the chat options they name (an option variable is
its field's name in capitals), its base URL, headers and other attributes. The ecosystem's
own variables are read when the adapter's are not set. (The connection variables every
provider shares are checked by the provider contract.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import SecretStr

from ostinato.http import HttpxChatModel, ProviderSettings
from ostinato.prompt import ChatOptions
from ostinato_anthropic import AnthropicChatOptions, AnthropicSettings
from ostinato_anthropic import create_chat_model as anthropic_model
from ostinato_ollama import OllamaChatOptions, OllamaSettings
from ostinato_ollama import create_chat_model as ollama_model
from ostinato_openai import OpenAIChatOptions, OpenAISettings
from ostinato_openai import create_chat_model as openai_model
from tests.fakes.environment import clean_provider_environment

#: The connection defaults every adapter keeps from ``ProviderSettings``.
CONNECTION_DEFAULTS = {
    "api_key": None,
    "timeout": 600.0,
    "connect_timeout": 10.0,
    "max_retries": 2,
    "max_retry_time": 120.0,
    "max_connections": 1000,
    "max_keepalive_connections": 200,
}


@dataclass(frozen=True)
class AdapterSettings:
    """One adapter's settings, what they default to and what its variables set."""

    name: str
    settings: type[ProviderSettings]
    create: Callable[..., HttpxChatModel[Any]]
    options: type[ChatOptions]
    #: Its own defaults (besides the connection ones).
    defaults: Mapping[str, Any]
    #: Its variables that are no chat option (after the prefix), and their values.
    variables: Mapping[str, str]
    #: Its chat-option variables: the text set, and the option's value read from it.
    chosen: Mapping[str, tuple[str, Any]]
    #: What the settings and the model built from them read from ``variables``.
    loaded: Mapping[str, Any] = field(default_factory=dict)
    built: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The ecosystem's variables, and the settings they set.
    fallbacks: Mapping[str, str] = field(default_factory=dict)
    fallen_back: Mapping[str, Any] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return f"OSTINATO_{self.name.upper()}_"


ADAPTERS = [
    AdapterSettings(
        "openai",
        OpenAISettings,
        openai_model,
        OpenAIChatOptions,
        defaults={
            "base_url": "https://api.openai.com/v1",
            "model": "gpt-4.1-mini",
            "stream_usage": True,
            "system_role": "system",
            "uses_openai": True,
        },
        variables={
            "API_KEY": "sk-ost",
            "BASE_URL": "http://localhost:11434/v1",
            "ORGANIZATION": "org",
            "PROJECT": "proj",
        },
        chosen={
            "MODEL": ("qwen3", "qwen3"),
            "TEMPERATURE": ("0.2", 0.2),
            "TOP_P": ("0.9", 0.9),
            "MAX_TOKENS": ("100", 100),
            "MAX_COMPLETION_TOKENS": ("200", 200),
            "SEED": ("7", 7),
            "REASONING_EFFORT": ("low", "low"),
            "PARALLEL_TOOL_CALLS": ("false", False),
            "STRICT_TOOLS": ("true", True),
            "STREAM_USAGE": ("false", False),
            "SYSTEM_ROLE": ("developer", "developer"),
            "EXTRA_BODY": ('{"enable_thinking": false}', {"enable_thinking": False}),
        },
        loaded={"uses_openai": False},
        built={"base_url": "http://localhost:11434/v1"},
        headers={"openai-organization": "org"},
        fallbacks={
            "OPENAI_API_KEY": "sk-eco",
            "OPENAI_BASE_URL": "https://openrouter.ai/api/v1",
            "OPENAI_ORG_ID": "org-eco",
            "OPENAI_PROJECT_ID": "proj-eco",
        },
        fallen_back={
            "api_key": "sk-eco",
            "base_url": "https://openrouter.ai/api/v1",
            "organization": "org-eco",
            "project": "proj-eco",
        },
    ),
    AdapterSettings(
        "anthropic",
        AnthropicSettings,
        anthropic_model,
        AnthropicChatOptions,
        defaults={
            "base_url": "https://api.anthropic.com",
            "api_version": "2023-06-01",
            "betas": [],
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "uses_anthropic": True,
        },
        variables={
            "API_KEY": "sk-ant-ost",
            "BASE_URL": "https://gateway.test/anthropic",
            "API_VERSION": "2024-01-01",
            "BETAS": "prompt-caching-2024-07-31, files-api-2025-04-14",
        },
        chosen={
            "MODEL": ("claude-haiku-4-5", "claude-haiku-4-5"),
            "MAX_TOKENS": ("8000", 8000),
            "TEMPERATURE": ("0.2", 0.2),
            "TOP_P": ("0.9", 0.9),
            "TOP_K": ("40", 40),
            "THINKING_BUDGET": ("2048", 2048),
            "CACHE_SYSTEM": ("true", True),
            "CACHE_TOOLS": ("true", True),
            "CACHE_MESSAGES": ("false", False),
            "CACHE_TTL": ("1h", "1h"),
            "EXTRA_BODY": ('{"service_tier": "standard_only"}', {"service_tier": "standard_only"}),
        },
        loaded={
            "uses_anthropic": False,
            "betas": ["prompt-caching-2024-07-31", "files-api-2025-04-14"],
        },
        built={
            "base_url": "https://gateway.test/anthropic",
            "_betas": ("prompt-caching-2024-07-31", "files-api-2025-04-14"),
        },
        headers={"anthropic-version": "2024-01-01"},
        fallbacks={"ANTHROPIC_API_KEY": "sk-ant-sdk", "ANTHROPIC_BASE_URL": "https://proxy.test"},
        fallen_back={"api_key": "sk-ant-sdk", "base_url": "https://proxy.test"},
    ),
    AdapterSettings(
        "ollama",
        OllamaSettings,
        ollama_model,
        OllamaChatOptions,
        defaults={
            "base_url": "http://localhost:11434",
            "model": "qwen3",
            "keep_alive": None,
            "think": None,
            "format": None,
        },
        variables={"BASE_URL": "gpu-box", "API_KEY": "ollama-ost"},
        chosen={
            "MODEL": ("llama3.2", "llama3.2"),
            "KEEP_ALIVE": ("-1", -1),
            "THINK": ("high", "high"),
            "FORMAT": ('{"type": "object"}', {"type": "object"}),
            "NUM_CTX": ("8192", 8192),
            "TEMPERATURE": ("0.2", 0.2),
            "TOP_P": ("0.9", 0.9),
            "TOP_K": ("40", 40),
            "SEED": ("7", 7),
            "MAX_TOKENS": ("256", 256),
            "OPTIONS": ('{"repeat_penalty": 1.1}', {"repeat_penalty": 1.1}),
            "EXTRA_BODY": ('{"logprobs": true}', {"logprobs": True}),
        },
        built={"base_url": "http://gpu-box:11434"},
        headers={"authorization": "Bearer ollama-ost"},
        fallbacks={"OLLAMA_HOST": "0.0.0.0", "OLLAMA_API_KEY": "ollama-key"},
        fallen_back={"base_url": "http://127.0.0.1:11434", "api_key": "ollama-key"},
    ),
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    clean_provider_environment(monkeypatch, tmp_path)


each_adapter = pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])


def check_read(settings: object, expected: Mapping[str, Any]) -> None:
    """Each named attribute holds its value (a secret compared by its text)."""
    for name, value in expected.items():
        found = getattr(settings, name)
        if isinstance(found, SecretStr):
            found = found.get_secret_value()
        assert found == value, name


@each_adapter
def test_defaults(adapter: AdapterSettings) -> None:
    check_read(adapter.settings(), {**CONNECTION_DEFAULTS, **adapter.defaults})


@each_adapter
def test_ostinato_variables(adapter: AdapterSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in adapter.variables.items():
        monkeypatch.setenv(adapter.prefix + name, value)
    for name, (text, _) in adapter.chosen.items():
        monkeypatch.setenv(adapter.prefix + name, text)
    settings = adapter.settings()
    key = adapter.variables["API_KEY"]
    check_read(settings, {"api_key": key, **adapter.loaded})
    assert key not in repr(settings)
    model = adapter.create("", settings)
    check_read(model, adapter.built)
    options = {name.lower(): value for name, (_, value) in adapter.chosen.items()}
    assert model.default_options == adapter.options(**options)
    for header, value in adapter.headers.items():
        assert model._headers[header] == value


@each_adapter
def test_ecosystem_fallbacks(adapter: AdapterSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in adapter.fallbacks.items():
        monkeypatch.setenv(name, value)
    check_read(adapter.settings(), adapter.fallen_back)
