"""The ``ostinato`` command: plugins, config, plugin subcommands, errors and exit codes."""

from __future__ import annotations

import json

import pytest

from ostinato.cli import EXIT_CONFIGURATION_ERROR, main
from tests.core.cli.cli_process import run_cli, run_main

ACME = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("acme", lambda context, model_name: None)

    @hookimpl
    def register_settings(register):
        from pydantic import AliasChoices, Field, SecretStr
        from pydantic_settings import SettingsConfigDict
        from ostinato.config import PluginSettings

        class AcmeSettings(PluginSettings):
            model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

            api_key: SecretStr | None = Field(
                default=None,
                validation_alias=AliasChoices("OSTINATO_ACME_API_KEY", "ACME_API_KEY"),
            )
            region: str = "eu"
            retries: int = 1

        register("OSTINATO_ACME_", AcmeSettings)

    @hookimpl
    def register_commands(register):
        def run(argv):
            print("acme ran with", argv)
            return 3

        register("acme", "Manage acme things.", run)
"""


def show_config(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variables: dict[str, str],
) -> tuple[int, str, str, dict[str, list[str]]]:
    """``ostinato config`` with ``variables`` set: its exit code, stdout, stderr, and the
    words of each line that names a variable, by its first. The value of every ``*API_KEY``
    variable set appears in neither output."""
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    code, out, err = run_main(capsys, "config")
    for name, value in variables.items():
        if name.endswith("API_KEY"):
            assert value not in out + err
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if "OSTINATO_" in line}
    return code, out, err, rows


@pytest.fixture
def acme(fake_distributions):
    fake_distributions.plugin("acme", ACME, version="2.1")
    return fake_distributions


def test_plugins_table(acme, capsys):
    acme.plugin("broken", "import not_a_module_anywhere\n", version="0.1")
    code, out, err = run_main(capsys, "plugins")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["PLUGIN", "DISTRIBUTION", "VERSION", "REGISTERED"]
    assert lines[1].split()[:3] == ["core", "ostinato", ostinato_version()]
    assert "tool advisor: default" in lines[1]
    assert lines[2].split()[:3] == ["acme", "ostinato-acme", "2.1"]
    assert "chat model provider: acme; settings prefix: OSTINATO_ACME_; command: acme" in lines[2]
    assert "tool advisor: default (from core; no replacement installed)" in out
    assert "failed:\n  broken (ostinato-broken 0.1): ModuleNotFoundError" in out
    assert err.startswith("ostinato: warning: plugin 'broken' (distribution ostinato-broken 0.1)")


def ostinato_version() -> str:
    import ostinato

    return ostinato.__version__


def test_plugins_json(acme, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_DISABLE_PLUGINS", "acmee")
    code, out, err = run_main(capsys, "plugins", "--json")
    assert code == 0
    assert err.splitlines() == [
        "ostinato: warning: OSTINATO_DISABLE_PLUGINS names 'acmee', which is not an installed "
        "plugin",
        "  did you mean 'acme'?",
    ]
    report = json.loads(out)
    assert [p["name"] for p in report["plugins"]] == ["core", "acme"]
    assert report["plugins"][1]["registered"] == {
        "chat_models": ["acme"],
        "settings": ["OSTINATO_ACME_"],
        "commands": ["acme"],
    }
    assert report["tool_advisor"] == {
        "name": "default",
        "plugin": "core",
        "reason": "no replacement installed",
    }
    assert report["failed"] == []
    assert report["skipped"] == []


def test_plugins_shows_why_no_tool_advisor_was_chosen(acme, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR", "nope")
    code, out, _ = run_main(capsys, "plugins")
    assert code == 0
    assert "tool advisor: none chosen: OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR='nope'" in out


def test_skipped_plugins_are_listed(acme, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "")
    code, out, _ = run_main(capsys, "plugins")
    assert code == 0
    assert "skipped:\n  acme (ostinato-acme): not listed in OSTINATO_LOAD_PLUGINS" in out


def test_config_shows_values_sources_and_masks_secrets(acme, capsys, monkeypatch):
    variables = {"OSTINATO_MODEL": "acme:big", "ACME_API_KEY": "sk-do-not-print"}
    code, out, _, rows = show_config(capsys, monkeypatch, variables)
    assert code == 0
    assert rows["OSTINATO_MODEL"] == ["acme:big", "env"]
    assert rows["OSTINATO_TOOLS__MAX_ITERATIONS"] == ["25", "default"]
    assert rows["OSTINATO_ACME_API_KEY"] == ["**********", "env", "(ACME_API_KEY)"]
    assert rows["OSTINATO_ACME_REGION"] == ["eu", "default"]
    assert "acme (ostinato-acme 2.1; prefix OSTINATO_ACME_)" in out


def test_config_json_and_dotenv_source(acme, capsys, clean_environment):
    clean_environment.joinpath(".env").write_text(
        "OSTINATO_ACME_REGION=us\nOSTINATO_MODLE=acme:x\n", encoding="utf-8"
    )
    code, out, err = run_main(capsys, "config", "--json")
    assert code == 0
    report = json.loads(out)
    region = next(
        s for s in report["plugins"]["acme"]["settings"] if s["variable"] == "OSTINATO_ACME_REGION"
    )
    assert (region["value"], region["source"]) == ("us", ".env")
    assert report["unknown_variables"] == ["OSTINATO_MODLE"]
    assert "ostinato: warning: OSTINATO_MODLE is set, but no ostinato setting reads it" in err
    assert "did you mean OSTINATO_MODEL?" in err


def test_a_bad_value_exits_2_with_one_line_and_the_fix(capsys, monkeypatch):
    variables = {"OSTINATO_TOOLS__MAX_ITERATIONS": "lots"}
    code, _, err, rows = show_config(capsys, monkeypatch, variables)
    assert code == EXIT_CONFIGURATION_ERROR == 2
    # The report still shows every setting, the bad one marked, after the problems.
    assert rows["OSTINATO_TOOLS__MAX_ITERATIONS"] == ["lots", "(bad", "value)", "env"]
    assert rows["OSTINATO_TOOLS__MAX_CALLS_PER_TOOL"] == ["40", "default"]
    first, *details = err.splitlines()
    assert first == (
        "ostinato: error: 1 ostinato setting has a bad value; fix: correct or unset these "
        "variables (in the environment or .env)"
    )
    assert details == [
        "  OSTINATO_TOOLS__MAX_ITERATIONS='lots': expected a valid integer, unable to parse "
        "string as an integer"
    ]


def test_a_bad_plugin_value_exits_2(acme, capsys, monkeypatch):
    variables = {"OSTINATO_ACME_RETRIES": "many", "OSTINATO_ACME_API_KEY": "secret-value"}
    code, _, err, rows = show_config(capsys, monkeypatch, variables)
    assert code == 2
    assert rows["OSTINATO_ACME_RETRIES"] == ["many", "(bad", "value)", "env"]
    assert rows["OSTINATO_ACME_API_KEY"] == ["**********", "env"]
    assert rows["OSTINATO_MODEL"] == ["(unset)", "default"]
    assert err.splitlines()[1] == (
        "  OSTINATO_ACME_RETRIES='many': expected a valid integer, unable to parse string as "
        "an integer"
    )


def test_a_registered_command_appears_in_help_and_runs(acme, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "acme" in out
    assert "Manage acme things." in out
    assert "plugins" in out
    assert "config" in out
    code, out, _ = run_main(capsys, "acme", "--force", "x")
    assert code == 3
    assert out == "acme ran with ['--force', 'x']\n"


def test_a_command_may_not_take_a_built_in_name(fake_distributions, capsys):
    fake_distributions.plugin(
        "sneaky",
        """
        from ostinato.plugins import hookimpl

        @hookimpl
        def register_commands(register):
            register("config", "Not the real config.", lambda argv: 99)
        """,
    )
    code, out, err = run_main(capsys, "config", "--json")
    assert code == 0
    assert json.loads(out)["core"]["prefix"] == "OSTINATO_"
    assert "registers the command 'config', which is built into ostinato" in err


def test_help_still_works_when_settings_are_bad(capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_STRICT_PLUGINS", "sometimes")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "plugin commands are unavailable: 1 ostinato setting has a bad value" in out


def test_no_command_prints_help(capsys):
    code, out, _ = run_main(capsys)
    assert code == 0
    assert out.startswith("usage: ostinato")


def test_plugin_errors_exit_2(fake_distributions, capsys, monkeypatch):
    fake_distributions.plugin("broken", "import not_a_module_anywhere\n")
    monkeypatch.setenv("OSTINATO_STRICT_PLUGINS", "true")
    code, _, err = run_main(capsys, "plugins")
    assert code == 2
    assert err.splitlines()[0].startswith(
        "ostinato: error: plugin 'broken' (distribution ostinato-broken 1.0) failed to load; fix:"
    )


def test_the_console_script_runs_as_a_module(clean_environment):
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"ostinato {ostinato_version()}"
