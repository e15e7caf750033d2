"""A misspelt provider: the nearest installed one is suggested before any package."""

from __future__ import annotations

from tests.core.cli.cli_process import run_ostinato

WITH_OLLAMA = {"OSTINATO_LOAD_PLUGINS": "scripted,ollama"}


def test_a_typo_of_an_installed_provider_suggests_it_first(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "--model", "olama:qwen3", "hi", env=WITH_OLLAMA)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "ostinato: error: unknown model provider 'olama' in --model 'olama:qwen3' (installed "
        "providers: ollama, scripted); fix: did you mean ollama? (--model ollama:qwen3); if "
        "not, install the plugin serving 'olama': pip install ostinato-olama"
    ]


def test_the_environment_variable_is_named_as_the_user_wrote_it(scripted, tmp_path):
    env = {**WITH_OLLAMA, "OSTINATO_MODEL": "olama:qwen3"}
    done = run_ostinato(scripted, tmp_path, "chat", "hi", env=env)
    assert done.returncode == 2
    assert "fix: did you mean ollama? (OSTINATO_MODEL=ollama:qwen3)" in done.stderr


def test_a_typo_of_a_first_party_provider_not_installed_names_its_package(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "--model", "antropic:claude", "hi")
    assert done.returncode == 2
    assert done.stderr.rstrip().endswith(
        "fix: did you mean anthropic? install its plugin: pip install ostinato-anthropic"
    )


def test_no_near_name_suggests_the_package_of_the_name(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "chat", "--model", "nope:big", "hi")
    assert done.stderr.rstrip().endswith(
        "fix: use an installed provider (`ostinato models` lists them), or install its "
        "plugin: pip install ostinato-nope"
    )


def test_the_library_suggests_the_same(scripted, monkeypatch):
    import pytest

    import ostinato
    from ostinato.errors import ConfigurationError

    monkeypatch.setenv("OSTINATO_MODEL", "scriptd:hello")
    with pytest.raises(
        ConfigurationError, match=r"did you mean scripted\? \(OSTINATO_MODEL=scripted:hello\)"
    ):
        ostinato.chat_client()
