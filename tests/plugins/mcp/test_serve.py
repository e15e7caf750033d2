"""ostinato as an MCP server: its tools (and the agent as ``ask_agent``) used by the
SDK's own client, in both protocol revisions, and by ostinato's MCP plugin through a
tool loop, over streamable HTTP on loopback and over stdio."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_mcp import McpServer, build_mcp_server
from ostinato_mcp._command import main
from ostinato_mcp._serve import http_app
from tests.plugins.mcp.ostinato_tools import TOOLS

pytestmark = pytest.mark.asyncio(loop_scope="module")
SCRIPT = str(Path(__file__).with_name("ostinato_tools.py"))


def echo(prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(message.responses[0].response_data)


@pytest.fixture(scope="module")
def served_url() -> Iterator[str]:
    from tests.uvicorn_loopback import serve_on_loopback

    agent = ChatClient.builder(
        ScriptedChatModel([], responder=lambda prompt: f"agent heard: {prompt.messages[-1].text}")
    ).build()
    server = build_mcp_server(TOOLS, agent=agent)
    with serve_on_loopback(http_app(server), lifespan="on") as url:
        yield f"{url}/mcp"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_uses_ostinatos_tools_and_agent(served_url, mode):
    async with Client(served_url, mode=mode) as client:
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["shout", "divide", "ask_agent"]
        assert listed.tools[1].input_schema["required"] == ["a", "b"]
        shouted = await client.call_tool("shout", {"text": "hi"})
        assert shouted.content[0].text == "HI!" and not shouted.is_error
        failed = await client.call_tool("divide", {"a": 1, "b": 0})
        assert failed.is_error and "ZeroDivisionError" in failed.content[0].text
        asked = await client.call_tool("ask_agent", {"message": "hello"})
        assert asked.content[0].text == "agent heard: hello"
        unknown = await client.call_tool("erase", {"path": "/"})
        assert unknown.is_error and "no tool 'erase'" in unknown.content[0].text


async def test_ostinatos_mcp_plugin_uses_ostinato_as_a_server_over_http(served_url):
    server = McpServer(name="ostinato", url=served_url)
    try:
        tools = await server.list_tools()
        model = ScriptedChatModel([tool_call_response(("shout", {"text": "loud"})), echo])
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        assert await client.prompt("go").tools(tools).call().acontent() == "LOUD!"
    finally:
        await server.aclose()


async def test_ostinatos_mcp_plugin_uses_ostinato_as_a_server_over_stdio():
    async with McpServer(name="ostinato", command=sys.executable, args=[SCRIPT]) as server:
        assert server.protocol_version == "2026-07-28"
        assert [t.tool_definition.name for t in await server.list_tools()] == ["shout", "divide"]
        assert await server.call_tool("divide", {"a": 7, "b": 2}) == "3.5"


async def test_mcp_serve_is_a_command_with_the_client_options(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = capsys.readouterr().out
    for option in ("--agent", "--http", "--tools", "--mcp", "--model"):
        assert option in shown
