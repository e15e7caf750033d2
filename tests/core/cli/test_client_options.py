"""``ostinato.cli.add_client_options`` / ``open_client``: a plugin command takes
``ostinato chat``'s client options and builds its client the same way."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import re
from pathlib import Path

import pytest

from ostinato import ChatClient
from ostinato.cli import ConfiguredClient, add_client_options, main, open_client
from ostinato.cli._chat_command import add_chat_command
from ostinato.errors import ConfigurationError
from ostinato.testing import ScriptedChatModel, text_response
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "plugins.md"
TOOLS = '''
from ostinato import tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''


def _options(parser: argparse.ArgumentParser) -> dict[str, tuple[tuple[str, ...], str | None]]:
    return {
        a.dest: (tuple(a.option_strings), a.help)
        for a in parser._actions
        if a.option_strings and a.dest != "help"
    }


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ostinato test")
    add_client_options(parser)
    return parser.parse_args(list(argv))


def test_the_options_are_those_of_ostinato_chat() -> None:
    parser = argparse.ArgumentParser()
    add_client_options(parser)
    subparsers = argparse.ArgumentParser().add_subparsers()
    add_chat_command(subparsers)
    chat = subparsers.choices["chat"]
    ours = _options(parser)
    assert set(ours) == {"model", "tools", "mcp", "system", "option", "yes"}
    assert {name: _options(chat)[name] for name in ours} == ours


def test_open_client_builds_the_client_with_system_and_options_as_defaults(
    scripted: FakeDistributions, tmp_path: Path
) -> None:
    tools_file = tmp_path / "my_tools.py"
    tools_file.write_text(TOOLS, encoding="utf-8")
    args = _parse(
        "-m", "scripted:options", "-s", "Be brief.", "-o", "temperature=0.2", "-t", str(tools_file)
    )

    async def run() -> tuple[ConfiguredClient, str | None]:
        async with open_client(args) as configured:
            return configured, await configured.client.prompt("hi").call().acontent()

    configured, answer = asyncio.run(run())
    assert answer == "temperature=0.2 max_tokens=None stop=None system='Be brief.'"
    assert (configured.model_name, configured.provider) == ("scripted:options", "scripted")
    assert configured.model is scripted_provider.CREATED[-1]
    assert [t.tool_definition.name for t in configured.tools] == ["add"]


def test_a_wrong_option_is_a_configuration_error(scripted: FakeDistributions) -> None:
    with pytest.raises(ConfigurationError, match="no_such_option"):
        open_client(_parse("-m", "scripted:hello", "-o", "no_such_option=1"))
    with pytest.raises(ConfigurationError, match="--model"):
        open_client(_parse("-m", "no-colon"))


def test_a_namespace_without_the_client_options_is_refused() -> None:
    with pytest.raises(
        TypeError, match=r"(?s)lack model, .*fix: call ostinato.cli.add_client_options"
    ):
        open_client(argparse.Namespace(question="hi"))


def _guide_command() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.S | re.M)
    (source,) = [block for block in blocks if "def ask(" in block]
    return source


def test_the_command_of_the_plugin_guide_runs(
    scripted: FakeDistributions, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.plugin("ask", _guide_command())
    argv = ["ask", "-m", "scripted:options", "-s", "Be brief.", "-o", "max_tokens=7", "hi"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out == "scripted:options: temperature=None max_tokens=7 stop=None system='Be brief.'\n"


def test_the_command_of_the_plugin_guide_reports_a_wrong_option(
    scripted: FakeDistributions, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.plugin("ask", _guide_command())
    assert main(["ask", "-m", "scripted:hello", "-o", "temperature=warm", "hi"]) == 2
    assert "temperature" in capsys.readouterr().err


class _ClosableModel(ScriptedChatModel):
    """A model that counts how often it is closed."""

    def __init__(self) -> None:
        super().__init__([text_response("hi")])
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def _configured(model: ScriptedChatModel) -> ConfiguredClient:
    return ConfiguredClient(ChatClient.create(model), model, "scripted:hello", "scripted")


def test_its_constructor_takes_public_fields_only() -> None:
    parameters = inspect.signature(ConfiguredClient).parameters
    assert list(parameters) == ["client", "model", "model_name", "provider", "tools"]
    assert not [name for name in parameters if name.startswith("_")]


def test_close_closes_the_model_once() -> None:
    model = _ClosableModel()
    configured = _configured(model)
    configured.close()
    configured.close()
    assert model.closed == 1


def test_a_with_block_closes_the_model() -> None:
    model = _ClosableModel()
    with _configured(model) as configured:
        assert configured.client.prompt("x").call().content() == "hi"
        assert model.closed == 0
    assert model.closed == 1


def test_an_async_with_block_closes_the_model() -> None:
    model = _ClosableModel()

    async def run() -> None:
        async with _configured(model) as configured:
            await configured.aclose()  # closing inside the block too: closed once
        assert model.closed == 1

    asyncio.run(run())


def test_open_client_closes_the_model_it_made(
    scripted: FakeDistributions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(scripted_provider.SCENARIOS, "closable", _ClosableModel)
    with open_client(_parse("-m", "scripted:closable")) as configured:
        model = configured.model
        assert isinstance(model, _ClosableModel) and model.closed == 0
    assert model.closed == 1
