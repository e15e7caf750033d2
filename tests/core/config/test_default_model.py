"""One default model for ``ostinato.chat_client()``, ``ostinato chat`` (and ``serve``, which
builds its client the same way) and the durable worker (a container's client); and the
errors of ``chat_client()`` come without the container's frames."""

from __future__ import annotations

import traceback

import pytest

import ostinato
from ostinato.cli._model_choice import choose_model
from ostinato.config import (
    LOCAL_DEFAULT_MODEL,
    Settings,
    build_container,
    create_plugin_manager,
    create_registry,
)
from ostinato.errors import ConfigurationError

PROVIDER = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        def factory(context, model_name):
            from ostinato.testing import ScriptedChatModel

            return ScriptedChatModel(["{provider} " + model_name])

        register("{provider}", factory)
"""


def provider(fakes, name: str) -> None:
    fakes.plugin(name, PROVIDER.format(provider=name))


def test_without_a_model_the_library_uses_the_local_default(fake_distributions):
    provider(fake_distributions, "llamacpp")
    provider(fake_distributions, "anthropic")
    client = ostinato.chat_client()
    assert client.prompt("hi").call().content() == "llamacpp default"


def test_the_command_line_and_the_worker_choose_the_same(fake_distributions):
    provider(fake_distributions, "llamacpp")
    provider(fake_distributions, "anthropic")
    registry = create_registry(create_plugin_manager(Settings()))
    choice = choose_model(None, None, registry)
    assert (choice.model, choice.source) == (LOCAL_DEFAULT_MODEL, "the local default")
    # The durable worker builds its client from a container, as chat_client() does.
    worker_client = build_container().chat_client()
    assert worker_client.prompt("hi").call().content() == "llamacpp default"


def test_without_a_model_or_the_local_provider_nothing_else_is_suggested(fake_distributions):
    provider(fake_distributions, "anthropic")
    with pytest.raises(ConfigurationError) as caught:
        ostinato.chat_client()
    lines = str(caught.value).splitlines()
    assert lines[0] == "no chat model is configured"
    assert lines[-1] == (
        "fix: set OSTINATO_MODEL=provider:model (e.g. OSTINATO_MODEL=openai:gpt-4.1-mini), or "
        "pip install ostinato-llamacpp for a local model that needs no key"
    )
    assert "anthropic:" not in str(caught.value)


def test_a_configuration_error_comes_without_the_containers_frames(fake_distributions):
    provider(fake_distributions, "anthropic")
    with pytest.raises(ConfigurationError) as caught:
        ostinato.chat_client()
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert not [f for f in frames if "dependency_injector" in f.filename]
    # This test's frame, then chat_client, where the user's call entered ostinato.
    assert [f.name for f in frames] == [
        "test_a_configuration_error_comes_without_the_containers_frames",
        "chat_client",
    ]


def test_a_bad_model_value_also_comes_without_them(fake_distributions, monkeypatch):
    provider(fake_distributions, "anthropic")
    monkeypatch.setenv("OSTINATO_MODEL", "antropic:claude")
    with pytest.raises(ConfigurationError, match="antropic") as caught:
        ostinato.chat_client()
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert len(frames) == 2 and frames[-1].name == "chat_client"
