"""``ostinato config``: bad values reported and the rest still shown; credentials masked."""

from __future__ import annotations

import json

import pytest

from tests.core.cli.cli_process import run_main

LEAK = "sk-LEAKED-0123456789"

HEADERS = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_settings(register):
        from pydantic import Field
        from pydantic_settings import SettingsConfigDict
        from ostinato.settings import PluginSettings

        class AcmeSettings(PluginSettings):
            model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

            base_url: str = "https://api.acme.test/v1"
            extra_headers: dict[str, str] = Field(default_factory=dict)
            extra_query: dict[str, str] = Field(default_factory=dict)
            retries: int = 1

        register("OSTINATO_ACME_", AcmeSettings)
"""


@pytest.fixture
def acme(fake_distributions):
    fake_distributions.plugin("acme", HEADERS, version="1.0")
    return fake_distributions


def rows(out: str) -> dict[str, str]:
    found = {}
    for line in out.splitlines():
        parts = line.split(None, 1)
        if parts and parts[0].startswith("OSTINATO_"):
            found[parts[0]] = parts[1].rsplit(None, 1)[0].strip() if len(parts) > 1 else ""
    return found


def test_a_bad_json_value_is_reported_and_every_setting_still_shown(acme, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_ACME_EXTRA_HEADERS", f'{{"Authorization": "Bearer {LEAK}", ')
    monkeypatch.setenv("OSTINATO_ACME_RETRIES", "3")
    code, out, err = run_main(capsys, "config")
    assert code == 2
    assert LEAK not in out + err
    assert "Traceback" not in err
    assert err.splitlines()[1] == (
        '  OSTINATO_ACME_EXTRA_HEADERS=\'{"Authorization": "***", \': expected a JSON object '
        '({"name": value, ...}); it is not valid JSON (expecting property name enclosed in '
        "double quotes)"
    )
    shown = rows(out)
    assert shown["OSTINATO_ACME_EXTRA_HEADERS"] == '{"Authorization": "***",  (bad value)'
    assert shown["OSTINATO_ACME_RETRIES"] == "3"
    assert shown["OSTINATO_TOOLS__MAX_ITERATIONS"] == "25"


def test_a_bad_core_value_still_shows_the_plugins(acme, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_TOOLS", "{oops")
    code, out, err = run_main(capsys, "config", "--json")
    assert code == 2
    report = json.loads(out)
    assert report["problems"] == [
        "OSTINATO_TOOLS='{oops': expected a JSON object ({\"name\": value, ...}); it is not "
        "valid JSON (expecting property name enclosed in double quotes)"
    ]
    assert "acme" in report["plugins"]
    assert "OSTINATO_TOOLS='{oops'" in err


@pytest.mark.parametrize(
    "header",
    [
        "Authorization",
        "api-key",
        "x-api-key",
        "X-Auth-Token",
        "client_secret",
        "Password",
        "Cookie",
    ],
)
def test_credential_headers_are_masked(acme, capsys, monkeypatch, header):
    monkeypatch.setenv("OSTINATO_ACME_EXTRA_HEADERS", json.dumps({header: LEAK, "X-Team": "a"}))
    code, out, err = run_main(capsys, "config")
    assert code == 0
    assert LEAK not in out + err
    assert rows(out)["OSTINATO_ACME_EXTRA_HEADERS"] == json.dumps(
        {header: "**********", "X-Team": "a"}
    )


def test_urls_show_no_password_and_no_key_like_query_parameter(acme, capsys, monkeypatch):
    monkeypatch.setenv(
        "OSTINATO_ACME_BASE_URL", f"https://user:{LEAK}@api.acme.test/v1?api_key={LEAK}&v=2"
    )
    monkeypatch.setenv("OSTINATO_ACME_EXTRA_QUERY", json.dumps({"key": LEAK, "v": "2"}))
    code, out, err = run_main(capsys, "config")
    assert code == 0
    assert LEAK not in out + err
    shown = rows(out)
    assert shown["OSTINATO_ACME_BASE_URL"] == "https://user:***@api.acme.test/v1?api_key=***&v=2"
    assert shown["OSTINATO_ACME_EXTRA_QUERY"] == '{"key": "**********", "v": "2"}'


ADVISOR = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"

REPLACEMENT_LOOP = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_tool_advisors(register):
        def factory(context, tool_calling_manager):
            from ostinato.advisors import ToolCallingAdvisor

            return ToolCallingAdvisor(tool_calling_manager=tool_calling_manager)

        register("acme-loop", factory)
"""

LOCAL_PROVIDER = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("llamacpp", lambda context, model_name: None)
"""


def _row(out: str, variable: str) -> str:
    (line,) = [line for line in out.splitlines() if line.split()[:1] == [variable]]
    return " ".join(line.split()[1:])


def _entry(report: dict, variable: str) -> dict:
    (entry,) = [e for e in report["core"]["settings"] if e["variable"] == variable]
    return entry


def test_config_shows_the_default_tool_advisor_and_why(fake_distributions, capsys):
    code, out, _ = run_main(capsys, "config")
    assert code == 0
    assert _row(out, ADVISOR) == "default no replacement installed (built into ostinato)"


def test_config_shows_an_installed_replacement_as_the_tool_advisor(fake_distributions, capsys):
    fake_distributions.plugin("acme-loop", REPLACEMENT_LOOP, version="2.0")
    code, out, _ = run_main(capsys, "config")
    assert code == 0
    assert _row(out, ADVISOR) == (
        "acme-loop the only installed replacement of 'default' "
        "(distribution ostinato-acme-loop 2.0)"
    )
    code, out, _ = run_main(capsys, "config", "--json")
    entry = _entry(json.loads(out), ADVISOR)
    assert (entry["value"], entry["source"]) == ("", "default")
    assert entry["effective"] == "acme-loop"
    assert entry["effective_source"] == (
        "the only installed replacement of 'default' (distribution ostinato-acme-loop 2.0)"
    )


def test_config_shows_the_tool_advisor_the_setting_chose(fake_distributions, capsys, monkeypatch):
    fake_distributions.plugin("acme-loop", REPLACEMENT_LOOP, version="2.0")
    monkeypatch.setenv(ADVISOR, "default")
    code, out, _ = run_main(capsys, "config")
    assert code == 0
    assert _row(out, ADVISOR) == "default env"


def test_config_shows_two_replacements_as_none_chosen(fake_distributions, capsys):
    fake_distributions.plugin("acme-loop", REPLACEMENT_LOOP, version="2.0")
    fake_distributions.plugin("other-loop", REPLACEMENT_LOOP.replace("acme-loop", "other-loop"))
    code, out, _ = run_main(capsys, "config")
    assert code == 0
    assert _row(out, ADVISOR) == (
        f"(none) 2 replacement tool advisors are installed: set {ADVISOR} to choose"
    )


def test_config_shows_the_model_used_when_none_is_set(fake_distributions, capsys):
    code, out, _ = run_main(capsys, "config")
    assert _row(out, "OSTINATO_MODEL") == "(unset) default"
    fake_distributions.plugin("llamacpp", LOCAL_PROVIDER)
    code, out, _ = run_main(capsys, "config")
    assert code == 0
    assert _row(out, "OSTINATO_MODEL") == (
        "llamacpp:default the local default (the llamacpp provider is installed)"
    )
