"""The plugin: the ``mcp`` tool set of auto-configured clients, ``ostinato mcp list``, and a
server with hundreds of tools behind tool search."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import sysconfig
from pathlib import Path

import pytest

import ostinato_mcp.plugin
from ostinato.cli import main as ostinato_main
from ostinato.config import build_container
from ostinato.errors import ConfigurationError
from ostinato.messages import ToolResponseMessage
from ostinato.plugins import ToolSetNotEnabledWarning
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_mcp import McpServer, McpServerUnavailableWarning, McpToolset
from tests.plugins.mcp.conftest import DEMO
from tests.plugins.mcp.demo_server import serve_http


def config_file(tmp_path: Path, servers: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def echo(prompt: Prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(message.responses[0].response_data)


def test_the_mcp_tool_set_gives_auto_configured_clients_the_servers_tools(
    tmp_path, monkeypatch, demo_url
):
    path = config_file(
        tmp_path, {"demo": {"url": demo_url}, "off": {"command": "x", "disabled": True}}
    )
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    monkeypatch.setenv("OSTINATO_MCP_CONFIG", str(path))
    model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo])
    container = build_container(plugins=[ostinato_mcp.plugin], chat_model=model)
    client = container.chat_client()
    assert client.prompt("1+2?").call().content() == "3"
    options = model.prompts[0].options
    assert isinstance(options, ToolCallingChatOptions)
    assert {"add", "fail", "grow"} <= set(options.tool_names)
    options.tool_callbacks[0].server.close_all()  # type: ignore[attr-defined]


def counted_demo(starts: Path) -> dict[str, object]:
    """The demo server over stdio, writing each start to ``starts``."""
    return {"command": sys.executable, "args": [DEMO], "env": {"DEMO_STARTS": str(starts)}}


def started(starts: Path) -> int:
    return len(starts.read_text().split()) if starts.exists() else 0


def test_the_file_alone_adds_nothing_and_building_the_client_says_which_variable_does(
    tmp_path, monkeypatch
):
    starts = tmp_path / "starts"
    monkeypatch.delenv("OSTINATO_TOOLS__ENABLED", raising=False)
    monkeypatch.setenv(
        "OSTINATO_MCP_CONFIG", str(config_file(tmp_path, {"demo": counted_demo(starts)}))
    )
    model = ScriptedChatModel(["No tools."])
    with pytest.warns(ToolSetNotEnabledWarning) as warned:
        client = build_container(plugins=[ostinato_mcp.plugin], chat_model=model).chat_client()
    [warning] = [w for w in warned if w.category is ToolSetNotEnabledWarning]
    assert str(warning.message).startswith(
        "OSTINATO_MCP_CONFIG is set, but the tool set 'mcp' of plugin 'plugin' (passed "
        "explicitly) is not enabled: auto-configured clients do not get its tools\n"
        "fix: set OSTINATO_TOOLS__ENABLED=mcp to use it, or unset OSTINATO_MCP_CONFIG"
    )
    assert client.prompt("Hi").call().content() == "No tools."
    assert getattr(model.prompts[0].options, "tool_names", ()) == ()
    assert started(starts) == 0


@pytest.mark.parametrize("path", ["call", "stream"])
def test_servers_start_on_first_use_not_when_the_client_is_built(tmp_path, monkeypatch, path):
    starts = tmp_path / "starts"
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    monkeypatch.setenv(
        "OSTINATO_MCP_CONFIG", str(config_file(tmp_path, {"demo": counted_demo(starts)}))
    )
    model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo, "Hello."])
    client = build_container(plugins=[ostinato_mcp.plugin], chat_model=model).chat_client()
    assert started(starts) == 0, "building the client started a server"
    try:
        spec = client.prompt("1+2?")
        text = spec.call().content() if path == "call" else "".join(spec.stream().content())
        assert text == "3"
        assert started(starts) == 1
        assert client.prompt("Hi").call().content() == "Hello."
        assert started(starts) == 1, "the second request started the server again"
    finally:
        for tool in model.prompts[0].options.tool_callbacks:  # type: ignore[union-attr]
            tool.server.close_all()


def test_a_server_that_cannot_start_is_a_configuration_warning_and_the_others_serve(
    tmp_path, monkeypatch, demo_url
):
    ghost = {"command": "/nonexistent/mcp-server"}
    path = config_file(tmp_path, {"demo": {"url": demo_url}, "ghost": ghost})
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    monkeypatch.setenv("OSTINATO_MCP_CONFIG", str(path))
    model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo])
    client = build_container(plugins=[ostinato_mcp.plugin], chat_model=model).chat_client()
    with pytest.warns(McpServerUnavailableWarning) as warned:
        assert client.prompt("1+2?").call().content() == "3"
    [warning] = [w for w in warned if w.category is McpServerUnavailableWarning]
    assert str(warning.message) == (
        "MCP server 'ghost' (/nonexistent/mcp-server) could not start: FileNotFoundError: "
        "no executable '/nonexistent/mcp-server'; its tools are unavailable until it "
        "starts (they are not offered to the model)\n"
        'fix: correct the server\'s "command" (the file does not exist or cannot run); '
        "`ostinato mcp list` shows each server and why it does not start; correct or "
        "disable the server 'ghost' in the mcpServers file"
    )
    options = model.prompts[0].options
    assert isinstance(options, ToolCallingChatOptions)
    assert {"add", "fail"} <= set(options.tool_names)
    options.tool_callbacks[0].server.close_all()  # type: ignore[attr-defined]


def test_the_tool_set_without_a_file_says_what_to_set(monkeypatch):
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    monkeypatch.delenv("OSTINATO_MCP_CONFIG", raising=False)
    container = build_container(plugins=[ostinato_mcp.plugin], chat_model=ScriptedChatModel([]))
    with pytest.raises(ConfigurationError, match=r"fix: set OSTINATO_MCP_CONFIG=path/to/mcp\.json"):
        container.chat_client()


def test_mcp_list_shows_each_server_and_never_a_secret(tmp_path, capsys, demo_url):
    path = config_file(
        tmp_path,
        {
            "demo": {"url": demo_url, "headers": {"Authorization": "Bearer hidden-token-123"}},
            "ghost": {"command": "/nonexistent/server", "env": {"API_KEY": "hidden-key-456"}},
            "broken": {"url": "http://h", "headers": {"X-Api-Key": "hidden-789"}, "colour": "red"},
        },
    )
    code = ostinato_main(["mcp", "list", "--config", str(path)])
    out = capsys.readouterr().out
    assert code == 1, "a server failed"
    assert f"demo  (http: {demo_url})" in out and "  add: Add two integers" in out
    assert "ghost  (stdio: /nonexistent/server)\n  FAILED: MCP server 'ghost'" in out
    assert "broken  (not started: its configuration is broken)" in out
    assert "unknown key 'colour'" in out
    for secret in ("hidden-token-123", "hidden-key-456", "hidden-789"):
        assert secret not in out


def test_mcp_list_of_a_missing_file_is_a_configuration_error(tmp_path, capsys):
    assert ostinato_main(["mcp", "list", "--config", str(tmp_path / "none.json")]) == 2
    # The same one-line error, with its fix, as every ostinato command.
    assert capsys.readouterr().err == (
        f"ostinato: error: {tmp_path / 'none.json'}: no such MCP configuration file; fix: "
        "create it (see examples/mcp.json) or point OSTINATO_MCP_CONFIG / --mcp at it\n"
    )


def test_mcp_list_finds_a_server_installed_next_to_the_running_python(tmp_path, capfd, monkeypatch):
    # capfd: a stdio server writes its log to the real standard error.
    # A server installed in the virtual environment, which is not activated: not on PATH,
    # but in the running interpreter's scripts directory.
    scripts = tmp_path / "venv-bin"
    scripts.mkdir()
    server = scripts / "demo-mcp-server"
    server.write_text(
        f"#!{sys.executable}\nimport runpy\nrunpy.run_path({DEMO!r}, run_name='__main__')\n"
    )
    server.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    real_get_path = sysconfig.get_path
    monkeypatch.setattr(
        sysconfig,
        "get_path",
        lambda name, *a, **k: str(scripts) if name == "scripts" else real_get_path(name, *a, **k),
    )
    path = config_file(tmp_path, {"demo": {"command": "demo-mcp-server"}})
    assert ostinato_main(["mcp", "list", "--config", str(path)]) == 0
    assert "  add: Add two integers" in capfd.readouterr().out

    path = config_file(tmp_path, {"ghost": {"command": "ghost-mcp-server"}})
    assert ostinato_main(["mcp", "list", "--config", str(path)]) == 1
    out = capfd.readouterr().out
    assert (
        "  FAILED: MCP server 'ghost' (ghost-mcp-server) could not start: FileNotFoundError: no "
        "executable 'ghost-mcp-server' on PATH nor in this Python's scripts directory "
        f"({scripts}, {os.path.dirname(sys.executable)}); its tools are unavailable until it "
        "starts\n"
        "    fix: activate the virtual environment that has 'ghost-mcp-server' (source "
        '.venv/bin/activate), or give its absolute path as the server\'s "command"\n'
    ) in out


async def test_name_clashes_are_prefixed_by_the_rule(demo_url):
    one, two = (
        McpServer(name="one", url=demo_url),
        McpServer(name="two.b", url=demo_url, tool_prefix="b_"),
    )
    try:
        async with McpToolset([one, two]) as toolset:
            names = [t.tool_definition.name for t in toolset.get_tool_callbacks()]
            assert "add" in names and "b_add" in names, "an own prefix leaves no clash"
        clashing = McpToolset(
            [McpServer(name="one", url=demo_url), McpServer(name="two", url=demo_url)]
        )
        names = [t.tool_definition.name for t in await clashing.list_tools()]
        assert "one_add" in names and "two_add" in names
        always = McpToolset([McpServer(name="one", url=demo_url)], prefix="always")
        assert all(t.tool_definition.name.startswith("one_") for t in await always.list_tools())
        never = McpToolset(clashing.servers, prefix="never")
        with pytest.raises(ConfigurationError, match="MCP servers offer tools with one name: add"):
            never.get_tool_callbacks()
        await clashing.aclose()
        await always.aclose()
    finally:
        await one.aclose()
        await two.aclose()


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_hundreds_of_server_tools_behind_tool_search(mode):
    from ostinato import ChatClient
    from ostinato_tool_search import ToolSearchToolCallingAdvisor

    def pick(prompt: Prompt):
        found = json.loads(prompt.messages[-1].responses[0].response_data)  # type: ignore[union-attr]
        return tool_call_response((found[0], {"query": "Lisbon"}))

    with serve_http(many=300) as url:
        async with McpToolset([McpServer(name="big", url=url)]) as toolset:
            model = ScriptedChatModel(
                [
                    tool_call_response(("toolSearchTool", {"query": "records topic t217"})),
                    pick,
                    echo,
                ]
            )
            client = ChatClient.builder(model, tool_advisor=ToolSearchToolCallingAdvisor()).build()
            spec = client.prompt("Records of kind 217 for Lisbon?").tools(toolset)
            if mode == "call":
                answer = await spec.call().acontent()
            else:
                answer = "".join([t async for t in spec.stream().acontent()])
            assert len(toolset.get_tool_callbacks()) == 309  # 300 + the demo tools
    assert answer == "tool 217: Lisbon"
    counts = [len(p.options.tool_callbacks) for p in model.prompts]  # type: ignore[union-attr]
    assert counts[0] == 1 and max(counts) <= 11, f"the model saw {counts} tool definitions, not 306"


async def test_a_request_cancelled_while_the_servers_start_leaves_the_start_to_the_next(
    tmp_path, monkeypatch
):
    starts = tmp_path / "starts"
    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "mcp")
    monkeypatch.setenv(
        "OSTINATO_MCP_CONFIG", str(config_file(tmp_path, {"demo": counted_demo(starts)}))
    )
    model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo])
    client = build_container(plugins=[ostinato_mcp.plugin], chat_model=model).chat_client()
    first = asyncio.ensure_future(client.prompt("1+2?").call().acontent())
    # The server process is up, so the listing is under way (it writes the file).
    while not starts.exists():  # noqa: ASYNC110  # another process writes it: no event
        await asyncio.sleep(0.01)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    try:
        assert await client.prompt("1+2?").call().acontent() == "3"
        assert started(starts) == 1
    finally:
        for tool in model.prompts[0].options.tool_callbacks:  # type: ignore[union-attr]
            tool.server.close_all()
