"""A plugin setting is checked where it is used: a bad value of a plugin the command does
not use is a warning, not an error (a bad ``OSTINATO_SERVE_PORT`` does not stop
``ostinato chat``); used, the same value is the usual error naming the variable."""

from __future__ import annotations

import importlib.metadata
import warnings

import pytest

import ostinato
from ostinato.config import (
    BadSettingWarning,
    Settings,
    create_plugin_manager,
    create_registry,
)
from ostinato.errors import ConfigurationError
from ostinato.testing import ScriptedChatModel
from tests.core.cli.cli_process import run_main
from tests.fakes import scripted_provider

PORT_PROBLEM = (
    "OSTINATO_SERVE_PORT='abc': expected a valid integer, unable to parse string as an integer"
)

ACME_PROVIDER = """
    from pydantic_settings import SettingsConfigDict
    from ostinato.plugins import hookimpl
    from ostinato.settings import PluginSettings


    class AcmeSettings(PluginSettings):
        model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")
        retries: int = 1


    @hookimpl
    def register_settings(register):
        register("OSTINATO_ACME_", AcmeSettings)


    @hookimpl
    def register_chat_models(register):
        def factory(context, model_name):
            from ostinato.testing import ScriptedChatModel

            retries = context.plugin_settings(AcmeSettings).retries
            return ScriptedChatModel([f"{retries} retries"])

        register("acme", factory)
"""


@pytest.fixture
def serve_installed(fake_distributions, monkeypatch):
    """The real serve plugin, declared installed by its real entry point."""
    version = importlib.metadata.version("ostinato-serve")
    fake_distributions.add(
        "ostinato-serve", version=version, entry_points={"serve": "ostinato_serve.plugin"}
    )
    monkeypatch.setenv("OSTINATO_SERVE_PORT", "abc")
    return fake_distributions


def test_ostinato_chat_answers_despite_a_bad_serve_port(serve_installed, capsys):
    scripted_provider.install(serve_installed)
    code, out, err = run_main(capsys, "chat", "--model", "scripted:hello", "Hi")
    assert code == 0, err
    assert "Hello!" in out
    assert "warning" in err and PORT_PROBLEM in err
    assert "error" not in err


def test_chat_client_warns_and_builds(serve_installed):
    with pytest.warns(BadSettingWarning, match="OSTINATO_SERVE_PORT='abc'") as caught:
        client = ostinato.chat_client(chat_model=ScriptedChatModel(["hi"]))
    assert client.prompt("hello").call().content() == "hi"
    message = str(caught[0].message)
    assert "fix: correct or unset it" in message and "serve" in message


def test_the_registry_warns_once_per_problem(serve_installed):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        create_registry(create_plugin_manager(Settings()))
    bad = [w for w in seen if issubclass(w.category, BadSettingWarning)]
    assert len(bad) == 1 and PORT_PROBLEM in str(bad[0].message)


def test_a_bad_value_of_a_setting_in_use_is_still_an_error(fake_distributions, monkeypatch):
    fake_distributions.plugin("acme", ACME_PROVIDER)
    monkeypatch.setenv("OSTINATO_MODEL", "acme:small")
    monkeypatch.setenv("OSTINATO_ACME_RETRIES", "many")
    with (
        pytest.warns(BadSettingWarning),
        pytest.raises(ConfigurationError, match="OSTINATO_ACME_RETRIES='many'"),
    ):
        ostinato.chat_client()
    monkeypatch.setenv("OSTINATO_ACME_RETRIES", "3")
    assert ostinato.chat_client().prompt("hi").call().content() == "3 retries"


def test_ostinato_config_still_reports_it(serve_installed, capsys):
    code, _, err = run_main(capsys, "config")
    assert code == 2
    assert PORT_PROBLEM in err
