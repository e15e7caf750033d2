"""A misspelled ``OSTINATO_*`` variable gets a warning naming the closest valid one."""

from __future__ import annotations

import warnings

import pytest
from pydantic_settings import SettingsConfigDict

from ostinato.config import (
    PluginSettings,
    Settings,
    UnknownSettingWarning,
    build_container,
    setting_fields,
    warn_unknown_variables,
)
from ostinato.plugins import hookimpl


class AcmeSettings(PluginSettings):
    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

    region: str = "eu"


class AcmePlugin:
    @hookimpl
    def register_settings(self, register):
        register("OSTINATO_ACME_", AcmeSettings)


def test_the_closest_core_variable_is_named():
    with pytest.warns(UnknownSettingWarning) as caught:
        unknown = warn_unknown_variables(
            setting_fields(Settings), ["OSTINATO_TOOLS__MAX_ITERATON", "PATH"]
        )
    assert unknown == ["OSTINATO_TOOLS__MAX_ITERATON"]
    assert str(caught[0].message) == (
        "OSTINATO_TOOLS__MAX_ITERATON is set, but no ostinato setting reads it\n"
        "did you mean OSTINATO_TOOLS__MAX_ITERATIONS?"
    )


def test_known_variables_and_whole_nested_models_are_not_warned_about():
    names = [
        "OSTINATO_MODEL",
        "OSTINATO_TOOLS",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING",
        "OSTINATO_HTTP_ENGINE",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_unknown_variables(setting_fields(Settings), names) == []


def test_a_far_off_name_points_to_ostinato_config():
    with pytest.warns(UnknownSettingWarning, match="see `ostinato config`"):
        warn_unknown_variables(setting_fields(Settings), ["OSTINATO_XYZZY_PLUGH_QUUX_WIBBLE"])


def test_the_container_warns_about_environment_and_dotenv(clean_environment, monkeypatch):
    clean_environment.joinpath(".env").write_text("OSTINATO_MODLE=x:y\n", encoding="utf-8")
    monkeypatch.setenv("OSTINATO_ACME_REGOIN", "us")
    monkeypatch.setenv("OSTINATO_ACME_REGION", "us")
    with pytest.warns(UnknownSettingWarning) as caught:
        build_container(plugins=[AcmePlugin()]).registry()
    messages = sorted(str(w.message) for w in caught)
    assert messages == [
        "OSTINATO_ACME_REGOIN is set, but no ostinato setting reads it\n"
        "did you mean OSTINATO_ACME_REGION?",
        "OSTINATO_MODLE is set, but no ostinato setting reads it\ndid you mean OSTINATO_MODEL?",
    ]


def test_a_registered_plugin_prefix_makes_its_variables_known(monkeypatch):
    monkeypatch.setenv("OSTINATO_ACME_REGION", "us")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_container(plugins=[AcmePlugin()]).registry()
