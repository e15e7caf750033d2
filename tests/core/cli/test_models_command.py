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


def test_each_first_party_provider_says_what_it_is():
    # The real plugin modules, registered directly: each provider's description comes
    # from its plugin, so no two are alike and none is the factories' shared docstring.
    import ostinato_anthropic.plugin
    import ostinato_llamacpp.plugin
    import ostinato_ollama.plugin
    import ostinato_openai.plugin
    from ostinato.cli._models_command import models_report
    from ostinato.config import Settings, create_plugin_manager, create_registry

    plugins = {
        "anthropic": ostinato_anthropic.plugin,
        "llamacpp": ostinato_llamacpp.plugin,
        "ollama": ostinato_ollama.plugin,
        "openai": ostinato_openai.plugin,
    }
    registry = create_registry(create_plugin_manager(Settings(), plugins=plugins))
    described = {
        p["provider"]: p["description"] for p in models_report(Settings(), registry)["providers"]
    }
    assert sorted(described) == ["anthropic", "llamacpp", "ollama", "openai"]
    assert len(set(described.values())) == 4
    assert "Anthropic" in described["anthropic"]
    assert "llama-server" in described["llamacpp"]
    assert "Ollama" in described["ollama"]
    assert "OpenAI" in described["openai"]
    assert not [d for d in described.values() if "registered factory" in d]


def test_a_declared_provider_describes_itself_in_the_table(fake_distributions, capsys):
    fake_distributions.plugin(
        "acme",
        """
        from ostinato.plugins import provider_plugin

        PLUGIN = provider_plugin(
            "acme",
            settings="ostinato.settings:PluginSettings",
            factory="ostinato.testing:ScriptedChatModel",
            description="Acme's hosted models (needs OSTINATO_ACME_API_KEY).",
        )
        register_chat_models = PLUGIN.register_chat_models
        """,
    )
    code, out = run(capsys)
    assert code == 0
    (row,) = [line for line in out.splitlines() if line.startswith("acme ")]
    assert row.endswith("Acme's hosted models (needs OSTINATO_ACME_API_KEY).")
