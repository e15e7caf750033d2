"""Bad setting values: one line per variable, whatever the class, and never a credential.

Every settings class (core's and every installed plugin's) and every variable read as
JSON are covered: a value that is not JSON is a ConfigurationError naming the variable
(pydantic-settings' own SettingsError never escapes), and a credential inside a bad value
is masked.
"""

from __future__ import annotations

import pytest
from pydantic_settings import BaseSettings

from ostinato.config import build_container, create_plugin_manager
from ostinato.errors import ConfigurationError
from ostinato.plugins import collect_registry
from ostinato.settings import BadSettingWarning, Settings, load_settings, setting_fields
from ostinato.settings._json_fields import json_variables
from tests.core.config.loading import refused

LEAK = "sk-LEAKED-0123456789"


def installed_settings_classes() -> list[type[BaseSettings]]:
    registry = collect_registry(create_plugin_manager(Settings.model_construct()))
    return [Settings, *(r.value for r in registry.settings.values())]


def candidate_names(settings_class: type[BaseSettings]) -> list[str]:
    names = set()
    for field in setting_fields(settings_class):
        for name in field.env_names:
            parts = name.split("__")
            names |= {"__".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return sorted(names)


JSON_VARIABLES = [
    (settings_class, variable, expected)
    for settings_class in installed_settings_classes()
    for variable, expected in json_variables(settings_class, candidate_names(settings_class))
]


def test_the_json_variables_include_the_known_complex_fields():
    found = {variable for _, variable, _ in JSON_VARIABLES}
    assert {
        "OSTINATO_TOOLS",
        "OSTINATO_CHAT_CLIENT",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING",
        "OSTINATO_OPENAI_EXTRA_HEADERS",
        "OSTINATO_OPENAI_EXTRA_BODY",
        "OSTINATO_OLLAMA_OPTIONS",
    } <= found
    # Comma-separated lists are text, not JSON.
    assert "OSTINATO_TOOLS__ENABLED" not in found
    assert "OSTINATO_DISABLE_PLUGINS" not in found


@pytest.mark.parametrize(
    ("settings_class", "variable", "expected"),
    JSON_VARIABLES,
    ids=[variable for _, variable, _ in JSON_VARIABLES],
)
@pytest.mark.parametrize(
    "bad",
    [
        f'{{"Authorization": "Bearer {LEAK}", ',  # cut off after a complete pair
        f'{{"x-api-key": "{LEAK}',  # cut off inside the credential
        f"{{'token': '{LEAK}'}}",  # Python, not JSON
        f"api_key={LEAK}",  # not JSON at all
    ],
    ids=["truncated", "unterminated", "single-quotes", "text"],
)
def test_a_value_that_is_not_json_is_one_line_naming_the_variable(
    monkeypatch, settings_class, variable, expected, bad
):
    monkeypatch.setenv(variable, bad)
    with pytest.raises(ConfigurationError) as caught:
        load_settings(settings_class)
    message = str(caught.value)
    assert LEAK not in message
    (line,) = [line for line in message.splitlines() if line.startswith(f"  {variable}=")]
    assert f": expected {expected}; it is not valid JSON (" in line
    assert message.splitlines()[-1].startswith("fix: correct or unset these variables")


def test_every_bad_json_value_of_a_class_is_listed_at_once(monkeypatch):
    variables = {"OSTINATO_TOOLS": "{bad", "OSTINATO_CHAT_CLIENT__TOOL_CALLING": "["}
    assert str(refused(monkeypatch, variables)).splitlines() == [
        "2 ostinato settings have bad values:",
        "  OSTINATO_CHAT_CLIENT__TOOL_CALLING='[': expected a JSON object "
        '({"name": value, ...}); it is not valid JSON (expecting value)',
        "  OSTINATO_TOOLS='{bad': expected a JSON object "
        '({"name": value, ...}); it is not valid JSON (expecting property name enclosed '
        "in double quotes)",
        "fix: correct or unset these variables (in the environment or .env)",
    ]


def test_a_bad_json_value_from_dotenv_says_so(clean_environment):
    (clean_environment / ".env").write_text("OSTINATO_TOOLS={bad\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"OSTINATO_TOOLS='\{bad' \(from \.env\)"):
        load_settings(Settings)


def test_the_container_reports_a_plugins_bad_json_value_as_a_configuration_error(monkeypatch):
    monkeypatch.setenv("OSTINATO_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OSTINATO_OPENAI_EXTRA_HEADERS", f'{{"api-key": "{LEAK}"')
    with (
        pytest.warns(BadSettingWarning) as warned,
        pytest.raises(ConfigurationError) as caught,
    ):
        build_container(entry_points=True).chat_client()
    assert "OSTINATO_OPENAI_EXTRA_HEADERS=" in str(caught.value)
    assert LEAK not in str(caught.value)
    assert all(LEAK not in str(w.message) for w in warned)


def test_invalid_values_never_show_credentials_inside_them(monkeypatch):
    from ostinato_openai import OpenAISettings

    monkeypatch.setenv("OSTINATO_OPENAI_API_KEY", LEAK)
    # Valid JSON of the wrong shape, a key pasted into another variable, a URL password.
    monkeypatch.setenv("OSTINATO_OPENAI_EXTRA_HEADERS", f'{{"X-Team": "{LEAK}", "n": 1}}')
    monkeypatch.setenv("OSTINATO_OPENAI_TIMEOUT", "https://user:hunter2-secret@host/v1")
    monkeypatch.setenv("OSTINATO_OPENAI_MAX_RETRIES", f"3?api_key={LEAK}")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(OpenAISettings)
    message = str(caught.value)
    assert LEAK not in message and "hunter2-secret" not in message
    assert "OSTINATO_OPENAI_TIMEOUT='https://user:***@host/v1'" in message
    assert "OSTINATO_OPENAI_EXTRA_HEADERS=" in message
    assert "OSTINATO_OPENAI_MAX_RETRIES=" in message
