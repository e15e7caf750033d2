"""Settings fields as variables: names, secrets, and where each value came from."""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.config import (
    SECRET_MASK,
    PluginSettings,
    Settings,
    describe_settings,
    load_settings,
    setting_fields,
)

CORE_VARIABLES = [
    "OSTINATO_MODEL",
    "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED",
    "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR",
    "OSTINATO_TOOLS__MAX_CALLS_PER_TOOL",
    "OSTINATO_TOOLS__MAX_TOTAL_TOOL_CALLS",
    "OSTINATO_TOOLS__MAX_ITERATIONS",
    "OSTINATO_TOOLS__ENABLED",
    "OSTINATO_TOOLS__FINAL_ANSWER_ON_LIMIT",
    "OSTINATO_TOOLS__NO_PROGRESS_REPEATS",
    "OSTINATO_TOOLS__NO_PROGRESS_ACTION",
    "OSTINATO_TOOLS__MAX_MODEL_REQUESTS",
    "OSTINATO_TOOLS__MAX_TOTAL_TOKENS",
    "OSTINATO_TOOLS__APPROVE_EFFECTS",
    "OSTINATO_TOOLS__ORDER_EFFECTS",
    "OSTINATO_TOOLS__TOOL_RETRIES",
    "OSTINATO_TOOLS__EAGER_START",
    "OSTINATO_LOAD_PLUGINS",
    "OSTINATO_DISABLE_PLUGINS",
    "OSTINATO_STRICT_PLUGINS",
    "OSTINATO_HTTP_ENGINE",
]


class AcmeSettings(PluginSettings):
    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OSTINATO_ACME_API_KEY", "ACME_API_KEY")
    )
    region: str = "eu"
    retries: int = 2


def test_core_fields_are_exactly_the_variables_of_the_design():
    assert [f.env_name for f in setting_fields(Settings)] == CORE_VARIABLES
    assert not any(f.secret for f in setting_fields(Settings))


def test_plugin_fields_use_their_prefix_and_aliases():
    fields = {f.path: f for f in setting_fields(AcmeSettings)}
    assert fields[("api_key",)].env_names == ("OSTINATO_ACME_API_KEY", "ACME_API_KEY")
    assert fields[("api_key",)].secret
    assert fields[("region",)].env_names == ("OSTINATO_ACME_REGION",)


def test_describe_names_each_source_and_masks_secrets(clean_environment, monkeypatch):
    clean_environment.joinpath(".env").write_text(
        "OSTINATO_ACME_REGION=us\nOSTINATO_ACME_RETRIES=5\n", encoding="utf-8"
    )
    monkeypatch.setenv("ACME_API_KEY", "sk-very-secret")
    monkeypatch.setenv("OSTINATO_ACME_RETRIES", "3")
    described = {
        v.field.env_name: (v.value, v.source, v.variable)
        for v in describe_settings(load_settings(AcmeSettings))
    }
    assert described == {
        "OSTINATO_ACME_API_KEY": (SECRET_MASK, "env", "ACME_API_KEY"),
        "OSTINATO_ACME_REGION": ("us", ".env", "OSTINATO_ACME_REGION"),
        "OSTINATO_ACME_RETRIES": ("3", "env", "OSTINATO_ACME_RETRIES"),
    }


def test_describe_core_defaults_and_lists(monkeypatch):
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "a,b")
    described = {v.field.env_name: v for v in describe_settings(load_settings(Settings))}
    assert described["OSTINATO_TOOLS__ENABLED"].value == "a,b"
    assert described["OSTINATO_TOOLS__ENABLED"].source == "env"
    assert described["OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED"].value == "true"
    assert described["OSTINATO_MODEL"].value == ""
    assert described["OSTINATO_MODEL"].source == "default"


class HeaderSettings(PluginSettings):
    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    extra_headers: dict[str, str] = Field(default_factory=dict)


def test_describe_masks_credentials_inside_mappings(clean_environment, monkeypatch):
    # Azure sends its key in an ``api-key`` header: extra headers are no place to show it.
    monkeypatch.setenv(
        "OSTINATO_ACME_EXTRA_HEADERS",
        '{"api-key": "sk-azure", "Authorization": "Bearer t", "x-region": "eu"}',
    )
    (value,) = [v.value for v in describe_settings(load_settings(HeaderSettings))]
    assert "sk-azure" not in value and "Bearer t" not in value
    assert value == (
        f'{{"api-key": "{SECRET_MASK}", "Authorization": "{SECRET_MASK}", "x-region": "eu"}}'
    )
