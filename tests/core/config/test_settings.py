"""Core settings: every documented variable, lists, ``.env``, and errors by variable."""

from __future__ import annotations

import pytest
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.config import PluginSettings, Settings, load_settings
from ostinato.errors import ConfigurationError
from tests.core.config.loading import refused


def test_defaults():
    settings = load_settings(Settings)
    assert settings.model is None
    assert settings.chat_client.tool_calling.enabled is True
    assert settings.chat_client.tool_calling.advisor is None
    assert settings.tools.max_calls_per_tool == 40
    assert settings.tools.max_total_tool_calls == 150
    assert settings.tools.max_iterations == 25
    assert settings.tools.enabled == []
    assert settings.load_plugins is None
    assert settings.disable_plugins == []
    assert settings.strict_plugins is False


def test_every_core_variable(monkeypatch):
    for name, value in {
        "OSTINATO_MODEL": "openai:gpt-4.1-mini",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED": "false",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "tool-search",
        "OSTINATO_TOOLS__MAX_CALLS_PER_TOOL": "3",
        "OSTINATO_TOOLS__MAX_TOTAL_TOOL_CALLS": "7",
        "OSTINATO_TOOLS__MAX_ITERATIONS": "5",
        "OSTINATO_TOOLS__ENABLED": "clock, search",
        "OSTINATO_LOAD_PLUGINS": "openai,memory",
        "OSTINATO_DISABLE_PLUGINS": "tool-search",
        "OSTINATO_STRICT_PLUGINS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    settings = load_settings(Settings)
    assert settings.model == "openai:gpt-4.1-mini"
    assert settings.chat_client.tool_calling.enabled is False
    assert settings.chat_client.tool_calling.advisor == "tool-search"
    assert (settings.tools.max_calls_per_tool, settings.tools.max_total_tool_calls) == (3, 7)
    assert settings.tools.max_iterations == 5
    assert settings.tools.enabled == ["clock", "search"]
    assert settings.load_plugins == ["openai", "memory"]
    assert settings.disable_plugins == ["tool-search"]
    assert settings.strict_plugins is True


def test_an_empty_allow_list_means_none_and_unset_means_all(monkeypatch):
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "")
    assert load_settings(Settings).load_plugins == []


def test_limits_can_be_unlimited(monkeypatch):
    monkeypatch.setenv("OSTINATO_TOOLS__MAX_CALLS_PER_TOOL", "unlimited")
    monkeypatch.setenv("OSTINATO_TOOLS__MAX_TOTAL_TOOL_CALLS", "")
    settings = load_settings(Settings)
    assert settings.tools.max_calls_per_tool is None
    assert settings.tools.max_total_tool_calls is None


def test_variable_names_are_case_insensitive(monkeypatch):
    monkeypatch.setenv("ostinato_model", "ollama:qwen3")
    assert load_settings(Settings).model == "ollama:qwen3"


def test_a_provider_without_a_model_asks_for_its_default(monkeypatch):
    monkeypatch.setenv("OSTINATO_MODEL", "openai:")
    assert load_settings(Settings).model == "openai:"


def test_the_dotenv_file_is_read_and_the_environment_wins(clean_environment, monkeypatch):
    clean_environment.joinpath(".env").write_text(
        "OSTINATO_MODEL=ollama:qwen3\nOSTINATO_TOOLS__MAX_ITERATIONS=9\n", encoding="utf-8"
    )
    monkeypatch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "4")
    settings = load_settings(Settings)
    assert settings.model == "ollama:qwen3"
    assert settings.tools.max_iterations == 4


@pytest.mark.parametrize(
    ("value", "example"),
    [
        ("llamacpp", "llamacpp:default"),
        ("openai", "openai:gpt-4.1-mini"),
        ("Anthropic", "anthropic:claude-sonnet-4-5"),
        ("ollama", "ollama:qwen3"),
    ],
)
def test_a_bare_provider_name_gets_an_example_of_that_provider(monkeypatch, value, example):
    error = refused(monkeypatch, {"OSTINATO_MODEL": value})
    assert (
        f"  OSTINATO_MODEL={value!r}: expected provider:model, e.g. {example}"
        in str(error).splitlines()
    )
    assert "did you mean" not in str(error)


def test_every_bad_value_is_listed_by_variable_name(monkeypatch):
    error = refused(
        monkeypatch,
        {
            "OSTINATO_MODEL": "gpt-4",
            "OSTINATO_TOOLS__MAX_ITERATIONS": "0",
            "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED": "maybe",
        },
    )
    assert str(error).splitlines() == [
        "3 ostinato settings have bad values:",
        "  OSTINATO_MODEL='gpt-4': expected provider:model, e.g. openai:gpt-4.1-mini",
        "  OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED='maybe': expected a valid boolean, "
        "unable to interpret input",
        "  OSTINATO_TOOLS__MAX_ITERATIONS='0': expected greater than or equal to 1",
        "fix: correct or unset these variables (in the environment or .env)",
    ]
    assert error.__cause__ is None


def test_a_bad_value_from_dotenv_says_so(clean_environment):
    clean_environment.joinpath(".env").write_text(
        "OSTINATO_STRICT_PLUGINS=perhaps\n", encoding="utf-8"
    )
    with pytest.raises(ConfigurationError) as caught:
        load_settings(Settings)
    assert "  OSTINATO_STRICT_PLUGINS='perhaps' (from .env): expected a valid boolean" in str(
        caught.value
    )


class AcmeSettings(PluginSettings):
    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    api_key: SecretStr = Field(
        default=SecretStr(""),
        min_length=8,
        validation_alias=AliasChoices("OSTINATO_ACME_API_KEY", "ACME_API_KEY"),
    )
    timeout: float = Field(default=30.0, gt=0)


def test_plugin_settings_errors_never_show_a_secret_and_name_the_alias_used(monkeypatch):
    monkeypatch.setenv("ACME_API_KEY", "short")
    monkeypatch.setenv("OSTINATO_ACME_TIMEOUT", "-1")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(AcmeSettings)
    message = str(caught.value)
    assert "short" not in message
    assert message.splitlines()[:3] == [
        "2 AcmeSettings settings have bad values:",
        "  ACME_API_KEY=**********: value should have at least 8 items after validation, not 5",
        "  OSTINATO_ACME_TIMEOUT='-1': expected greater than 0",
    ]


def test_plugin_settings_read_their_prefix_and_aliases(monkeypatch):
    monkeypatch.setenv("OSTINATO_ACME_API_KEY", "sk-longer-than-8")
    monkeypatch.setenv("ACME_API_KEY", "ignored-because-second")
    settings = load_settings(AcmeSettings)
    assert settings.api_key.get_secret_value() == "sk-longer-than-8"
    assert "sk-longer" not in repr(settings)
