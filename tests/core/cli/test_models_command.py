"""``ostinato models``: providers, and the model ``ostinato chat`` would use."""

from __future__ import annotations

import json

from ostinato.cli import main


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["models", *argv])
    return code, capsys.readouterr().out


def test_lists_providers_and_says_no_model_is_configured(scripted, capsys):
    code, out = run(capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["PROVIDER", "PLUGIN", "DESCRIPTION"]
    assert lines[1].split()[:3] == ["scripted", "ostinato-scripted", "1.0"]
    assert "The scripted provider's factory: the model of scenario name." in lines[1]
    assert (
        "ostinato chat: no model: no chat model is configured (installed providers: scripted)"
        in out
    )


def test_the_configured_model(scripted, capsys, monkeypatch):
    monkeypatch.setenv("OSTINATO_MODEL", "scripted:hello")
    _, out = run(capsys)
    assert "ostinato chat uses scripted:hello (OSTINATO_MODEL)" in out
    _, out = run(capsys, "--json")
    report = json.loads(out)
    assert report["chat"] == {"model": "scripted:hello", "source": "OSTINATO_MODEL"}
    assert report["providers"][0]["select"] == "OSTINATO_MODEL=scripted:<model>"


def test_the_local_default_and_whether_it_is_set_up(fake_distributions, capsys):
    fake_distributions.plugin(
        "llamacpp",
        """
        from ostinato.plugins import hookimpl

        @hookimpl
        def register_chat_models(register):
            register("llamacpp", lambda context, name: None)

        @hookimpl
        def register_commands(register):
            register("local", "a local model", lambda argv: 1)
        """,
    )
    _, out = run(capsys)
    assert "ostinato chat uses llamacpp:default (the local default)" in out
    assert "not set up yet: `ostinato local setup` prepares it" in out


def test_no_provider_at_all(fake_distributions, capsys):
    code, out = run(capsys)
    assert code == 0
    assert out.startswith("no model provider is installed: pip install ostinato-openai")
