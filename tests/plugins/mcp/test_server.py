"""Real MCP servers through a ChatClient: listing, calls, ``isError``, a server killed in
the middle of a call and started again, a tool-list change, twenty conversations sharing
one session — over stdio (``mcp-server-time``, the demo server) and streamable HTTP."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal

import pytest
import pytest_asyncio

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ToolEffect
from ostinato_mcp import McpServer, McpToolMetadata
from tests.plugins.mcp.conftest import demo_stdio_config, time_server_config


def tool_answer(prompt: Prompt) -> str:
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return message.responses[0].response_data


def echo_tool_answer(prompt: Prompt):
    return text_response(tool_answer(prompt))


async def ask(model: ScriptedChatModel, tools, mode: str, question: str = "go") -> str:
    client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
    spec = client.prompt(question).tools(*tools)
    if mode == "call":
        return await spec.call().acontent() or ""
    return "".join([text async for text in spec.stream().acontent()])


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def time_server():
    server = McpServer(time_server_config())
    yield server
    await server.aclose()


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_the_time_server_answers_through_the_tool_loop(time_server, mode):
    tools = await time_server.list_tools()
    assert [t.tool_definition.name for t in tools] == ["get_current_time", "convert_time"]
    current = tools[0]
    assert json.loads(current.tool_definition.input_schema)["required"] == ["timezone"]
    metadata = current.tool_metadata
    assert isinstance(metadata, McpToolMetadata)
    assert (metadata.server, metadata.tool_name) == ("time", "get_current_time")
    assert metadata.output_schema is not None and "datetime" in metadata.output_schema["properties"]
    assert metadata.annotations == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert metadata.effect is ToolEffect.READ_ONLY  # from the real server's annotations
    model = ScriptedChatModel(
        [tool_call_response(("get_current_time", {"timezone": "Asia/Tokyo"})), echo_tool_answer]
    )
    answer = json.loads(await ask(model, tools, mode, "What time is it in Tokyo?"))
    assert answer["timezone"] == "Asia/Tokyo" and answer["datetime"].endswith("+09:00")


async def test_an_is_error_result_is_a_tool_error_the_model_reads(time_server):
    tools = await time_server.list_tools()
    model = ScriptedChatModel(
        [
            tool_call_response(("get_current_time", {"timezone": "Nowhere/Atlantis"})),
            echo_tool_answer,
        ]
    )
    answer = await ask(model, tools, "call")
    assert answer.startswith("Error: tool 'get_current_time' failed: ")
    assert "Invalid timezone" in answer


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_a_server_error_reaches_listeners_as_a_failed_tool(time_server, mode):
    from ostinato.events import ToolFinished

    tools = await time_server.list_tools()
    model = ScriptedChatModel(
        [
            tool_call_response(("get_current_time", {"timezone": "Nowhere/Atlantis"})),
            echo_tool_answer,
        ]
    )
    seen: list[ToolFinished] = []
    client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
    spec = (
        client.prompt("go")
        .tools(*tools)
        .listener(lambda event: seen.append(event) if isinstance(event, ToolFinished) else None)
    )
    if mode == "call":
        await spec.call().acontent()
    else:
        [text async for text in spec.stream().acontent()]
    [finished] = seen
    assert finished.call.name == "get_current_time"
    assert finished.error == "ToolExecutionError"
    assert "Invalid timezone" in finished.result


async def test_http_server_tools_results_and_media(demo_url):
    server = McpServer(name="demo", url=demo_url)
    try:
        tools = {t.tool_definition.name: t for t in await server.list_tools()}
        assert {"add", "fail", "picture", "grow"} <= set(tools)
        assert await tools["add"].call('{"a": 2, "b": 40}') == "42"
        assert await tools["picture"].call("{}") == "a red dot\n\n[image: image/png, 9 bytes]"
        model = ScriptedChatModel(
            [tool_call_response(("fail", {"reason": "no"})), echo_tool_answer]
        )
        answer = await ask(model, tools.values(), "call")
        assert answer == "Error: tool 'fail' failed: Error executing tool fail: refused: no"
    finally:
        await server.aclose()


async def test_a_tool_list_change_refreshes_the_tools(demo_url):
    server = McpServer(name="demo", url=demo_url)
    changed = asyncio.Event()
    server.on_tools_changed(lambda _: changed.set())
    try:
        before = [t.tool_definition.name for t in await server.list_tools()]
        assert "fresh" not in before
        assert await server.call_tool("grow", {"name": "fresh"}) == "added fresh"
        await asyncio.wait_for(changed.wait(), 10)
        tools = {t.tool_definition.name: t for t in server.tools()}
        assert await tools["fresh"].call("{}") == "I am fresh"
    finally:
        await server.aclose()


async def test_a_server_killed_mid_call_is_a_tool_error_then_it_restarts():
    server = McpServer(demo_stdio_config())
    try:
        tools = {t.tool_definition.name: t for t in await server.list_tools()}
        first_pid = int(await tools["pid"].call("{}"))
        waiting = asyncio.ensure_future(tools["wait"].call("{}"))
        os.kill(first_pid, signal.SIGKILL)
        with pytest.raises(Exception, match=r"MCP server 'demo' stopped during the call") as caught:
            await waiting
        assert "started again on the next call" in str(caught.value)
        second_pid = int(await tools["pid"].call("{}"))
        assert second_pid != first_pid
    finally:
        await server.aclose()


async def test_a_server_that_cannot_start_is_a_tool_error():
    server = McpServer(name="ghost", command="/nonexistent/mcp-server")
    with pytest.raises(
        Exception,
        match=r"MCP server 'ghost' \(/nonexistent/mcp-server\) could not start: FileNotFoundError: no executable '/nonexistent/mcp-server'",
    ):
        await server.call_tool("x", {})


async def test_twenty_conversations_share_one_session(demo_url):
    server = McpServer(name="demo", url=demo_url)
    try:
        tools = await server.list_tools()

        def respond(prompt: Prompt):
            if isinstance(prompt.messages[-1], ToolResponseMessage):
                return text_response(tool_answer(prompt))
            n = int(prompt.user_message.text)
            return tool_call_response(("add", {"a": n, "b": 1000}))

        model = ScriptedChatModel(responder=respond)
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        answers = await asyncio.gather(
            *(client.prompt(str(n)).tools(*tools).call().acontent() for n in range(20))
        )
        assert answers == [str(n + 1000) for n in range(20)]
        assert len(server._connections) == 1, "one session on this loop"
    finally:
        await server.aclose()


async def test_require_approval_lists_the_tools_whose_calls_wait_for_a_decision(demo_url):
    from ostinato.tools import ApprovalDecision, PendingToolCalls

    server = McpServer(name="demo", url=demo_url, require_approval=["add"])
    try:
        tools = {t.tool_definition.name: t for t in await server.list_tools()}
        assert tools["add"].tool_metadata.requires_approval
        assert not tools["pid"].tool_metadata.requires_approval
        asked: list[str] = []

        def deny(request):
            asked.append(request.call.name)
            return ApprovalDecision.deny("not today")

        model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo_tool_answer])
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        answer = await client.prompt("1+2").tools(*tools.values()).approver(deny).call().acontent()
        assert asked == ["add"] and "not today" in (answer or "")

        model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2}))])
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        response = await client.prompt("1+2").tools(*tools.values()).call().achat_client_response()
        assert PendingToolCalls.of(response) is not None, "without an approver the turn stops"
    finally:
        await server.aclose()


async def test_always_and_never_cover_every_tool_or_none():
    from ostinato_mcp import McpServerConfig

    always = McpServer(McpServerConfig(name="a", url="http://h/mcp", require_approval="always"))
    never = McpServer(McpServerConfig(name="n", url="http://h/mcp"))
    listed = mcp_tool("x")
    assert always._tool(listed, "").tool_metadata.requires_approval
    assert not never._tool(listed, "").tool_metadata.requires_approval


def mcp_tool(name: str):
    from mcp import types

    return types.Tool(name=name, input_schema={"type": "object"})


async def test_allowed_tools_offers_only_those(demo_url):
    server = McpServer(name="demo", url=demo_url, allowed_tools=["add", "pid"])
    try:
        assert [t.tool_definition.name for t in await server.list_tools()] == ["add", "pid"]
    finally:
        await server.aclose()


async def test_a_call_to_a_server_that_no_longer_starts_tells_the_model_why():
    server = McpServer(demo_stdio_config())
    add = next(t for t in await server.list_tools() if t.tool_definition.name == "add")
    await server.aclose()
    server.config = dataclasses.replace(server.config, command="/nonexistent/demo-server")
    for mode in ("call", "stream"):
        model = ScriptedChatModel([tool_call_response(("add", {"a": 1, "b": 2})), echo_tool_answer])
        text = await ask(model, [add], mode)
        assert text.startswith("Error: tool 'add' failed: MCP server 'demo'"), text
        assert "could not start: FileNotFoundError" in text
        assert text.endswith(
            "its tools are unavailable until it starts\n"
            'fix: correct the server\'s "command" (the file does not exist or cannot run)'
        )
