"""``ostinato chat --mcp FILE``: the servers' tools for one session, through the same
plugin settings ``OSTINATO_MCP_CONFIG`` sets, without changing the environment."""

from __future__ import annotations

import json
import os
import sys

import pytest

from ostinato.cli import main
from ostinato_mcp import McpTool
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions, clean_environment, fake_distributions
from tests.plugins.mcp.conftest import DEMO

__all__ = ["clean_environment", "fake_distributions"]


@pytest.fixture
def installed(fake_distributions: FakeDistributions, clean_environment, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    scripted_provider.install(fake_distributions)
    scripted_provider.CREATED.clear()
    return fake_distributions


def test_chat_mcp_offers_the_servers_tools(installed, capsys, tmp_path, demo_url):
    installed.add("ostinato-mcp", entry_points={"mcp": "ostinato_mcp.plugin"})
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"url": demo_url}}}))
    code = main(["chat", "-m", "scripted:add", "--mcp", str(config), "What is 2 + 40?"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip() == "42."
    assert "← add(" in err and ": 42" in err
    assert "OSTINATO_MCP_CONFIG" not in os.environ and "OSTINATO_TOOLS__ENABLED" not in os.environ
    tools = scripted_provider.CREATED[-1].prompts[0].options.tool_names  # type: ignore[union-attr]
    assert "add" in tools
    # The session the tool set opened on ostinato's private loop, closed before the server stops.
    offered = scripted_provider.CREATED[-1].prompts[0].options.tool_callbacks  # type: ignore[union-attr]
    next(t for t in offered if isinstance(t, McpTool)).server.close_all()


def test_chat_mcp_starts_a_stdio_server_once(installed, capfd, tmp_path):
    # capfd: a stdio server writes its log to the real standard error.
    installed.add("ostinato-mcp", entry_points={"mcp": "ostinato_mcp.plugin"})
    starts = tmp_path / "starts"
    demo = {"command": sys.executable, "args": [DEMO], "env": {"DEMO_STARTS": str(starts)}}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": demo}}))
    code = main(["chat", "-m", "scripted:add", "--mcp", str(config), "What is 2 + 40?"])
    out, err = capfd.readouterr()
    assert code == 0, err
    offered = scripted_provider.CREATED[-1].prompts[0].options.tool_callbacks  # type: ignore[union-attr]
    next(t for t in offered if isinstance(t, McpTool)).server.close_all()
    assert out.strip() == "42.", err
    # Listing the tools and calling one use the same server process.
    assert len(starts.read_text().split()) == 1


def test_chat_mcp_without_the_plugin_says_what_to_install(installed, capsys, tmp_path):
    code = main(["chat", "-m", "scripted:echo", "--mcp", str(tmp_path / "mcp.json"), "hi"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "--mcp needs the MCP plugin" in err and "fix: pip install ostinato-mcp" in err


def test_chat_mcp_with_a_broken_file_names_it(installed, capsys, tmp_path):
    installed.add("ostinato-mcp", entry_points={"mcp": "ostinato_mcp.plugin"})
    code = main(["chat", "-m", "scripted:echo", "--mcp", str(tmp_path / "none.json"), "hi"])
    _, err = capsys.readouterr()
    assert code == 2
    assert f"{tmp_path / 'none.json'}: no such MCP configuration file" in err


@pytest.mark.parametrize("command", [["config"], ["mcp", "list"]])
def test_config_and_mcp_list_say_the_file_is_set_but_not_enabled(
    installed, capsys, tmp_path, monkeypatch, demo_url, command
):
    installed.add("ostinato-mcp", entry_points={"mcp": "ostinato_mcp.plugin"})
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"url": demo_url}}}))
    monkeypatch.setenv("OSTINATO_MCP_CONFIG", str(config))
    assert main(command) == 0
    _, err = capsys.readouterr()
    assert err.count("OSTINATO_MCP_CONFIG is set, but the tool set 'mcp'") == 1, err
    assert "fix: set OSTINATO_TOOLS__ENABLED=mcp to use it, or unset OSTINATO_MCP_CONFIG" in err
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    assert main(command) == 0
    assert "OSTINATO_MCP_CONFIG is set" not in capsys.readouterr().err


def test_config_json_lists_the_tool_sets_not_enabled(installed, capsys, tmp_path, monkeypatch):
    installed.add("ostinato-mcp", entry_points={"mcp": "ostinato_mcp.plugin"})
    monkeypatch.setenv("OSTINATO_MCP_CONFIG", str(tmp_path / "mcp.json"))
    assert main(["config", "--json"]) == 0
    [note] = json.loads(capsys.readouterr().out)["tool_sets_not_enabled"]
    assert note.startswith("OSTINATO_MCP_CONFIG is set, but the tool set 'mcp' of plugin 'mcp'")
