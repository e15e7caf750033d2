"""Resources and prompts of a real server (the demo server, over streamable HTTP and
stdio), the protocol revision negotiated per server, and tools that change: a list change
picked up at the next round of a turn, a ``ttlMs`` that runs out, a stable tool order."""

from __future__ import annotations

import threading
import time

import pytest

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage, UserMessage
from ostinato.prompt_template import PromptTemplate
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_mcp import McpResourceTool, McpServer, McpServerConfig, McpToolset
from tests.plugins.mcp.conftest import demo_stdio_config
from tests.plugins.mcp.demo_server import serve_http

pytestmark = pytest.mark.asyncio(loop_scope="module")


def http_server(url: str, protocol: str = "auto", **more) -> McpServer:
    return McpServer(name="demo", url=url, protocol=protocol, **more)


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_resources_templates_and_attaching_one_to_a_prompt(demo_url, protocol):
    server = http_server(demo_url, protocol)
    async with server:
        assert server.protocol_version == ("2026-07-28" if protocol == "auto" else "2025-11-25")
        listed = {str(r.uri): r for r in await server.list_resources()}
        assert set(listed) == {"demo://readme", "demo://dot"}
        templates = await server.list_resource_templates()
        assert [t.uri_template for t in templates] == ["demo://notes/{topic}"]
        readme = await server.read_resource("demo://readme")
        assert readme.text.startswith("The demo server") and readme.media == ()
        notes = await server.read_resource("demo://notes/owls")
        assert notes.text == "Notes on owls: nothing yet."
        dot = await server.read_resource("demo://dot")
        assert dot.media[0].mime_type == "image/png" and dot.media[0].data == b"\x89PNG\r\n\x1a\n"
        assert dot.text == "[image/png: 8 bytes]"

        model = ScriptedChatModel(["seen"])
        client = ChatClient.builder(model).build()
        await client.prompt().user(f"What is this?\n\n{dot.text}", *dot.media).call().acontent()
        sent = model.prompts[0].messages[-1]
        assert isinstance(sent, UserMessage) and sent.media == dot.media


async def test_prompts_as_messages_and_as_an_ostinato_template(demo_url):
    async with http_server(demo_url) as server:
        prompts = {p.name: p for p in await server.list_prompts()}
        assert [a.name for a in prompts["review"].arguments] == ["language", "code"]
        messages = await server.get_prompt("review", {"language": "Python", "code": "x = 1"})
        assert len(messages) == 1 and isinstance(messages[0], UserMessage)
        assert messages[0].text == "Review this Python code {carefully}:\nx = 1"

        template = await server.prompt_template("review")
        assert isinstance(template, PromptTemplate)
        assert template.placeholders == {"language", "code"}
        model = ScriptedChatModel(["looks fine"])
        client = ChatClient.builder(model).build()
        spec = client.prompt().user(template, language="Go", code="fmt.Println()")
        assert await spec.call().acontent() == "looks fine"
        assert model.prompts[0].messages[-1].text == (
            "Review this Go code {carefully}:\nfmt.Println()"
        )
        assert (await server.prompt_template("greet")).text == "Say hello."
        with pytest.raises(Exception, match=r"no prompt .nope.*greet, review"):
            await server.prompt_template("nope")


async def test_resource_tools_let_the_model_list_and_read(demo_url):
    toolset = McpToolset([McpServerConfig(name="demo", url=demo_url, resource_tools=True)])
    async with toolset:
        tools = {t.tool_definition.name: t for t in toolset.get_tool_callbacks()}
        assert isinstance(tools["demo_read_resource"], McpResourceTool)
        listing = await tools["demo_list_resources"].call("{}")
        assert "demo://readme (text/plain) readme" in listing
        assert "template demo://notes/{topic} notes: Notes on a topic" in listing

        def read_answer(prompt):
            message = prompt.messages[-1]
            assert isinstance(message, ToolResponseMessage)
            return text_response(message.responses[0].response_data)

        model = ScriptedChatModel(
            [tool_call_response(("demo_read_resource", {"uri": "demo://notes/bats"})), read_answer]
        )
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        answer = await client.prompt("notes?").tools(toolset).call().acontent()
        assert answer == "Notes on bats: nothing yet."


async def test_stdio_negotiates_the_stateless_revision_or_the_handshake_per_server():
    modern = McpServer(demo_stdio_config("modern"))
    legacy = McpServer(dataclass_replace(demo_stdio_config("legacy"), protocol="legacy"))
    async with modern, legacy:
        assert modern.protocol_version == "2026-07-28"
        assert legacy.protocol_version == "2025-11-25"
        for server in (modern, legacy):
            assert await server.call_tool("add", {"a": 2, "b": 3}) == "5"
            assert (await server.read_resource("demo://readme")).text.startswith("The demo")


def dataclass_replace(config: McpServerConfig, **changes) -> McpServerConfig:
    import dataclasses

    return dataclasses.replace(config, **changes)


def tool_names(prompt) -> list[str]:
    return [t.tool_definition.name for t in prompt.options.tool_callbacks]


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_list_change_is_picked_up_at_the_next_round(protocol):
    with serve_http() as url:
        server = http_server(url, protocol)
        heard = threading.Event()
        server.on_tools_changed(lambda _: heard.set())
        toolset = McpToolset([server])

        def once_heard(prompt):
            # The change arrives on its own (a notification, or a listen event): the
            # round after it was heard offers the new tool.
            assert heard.wait(10)
            return tool_call_response(("add", {"a": 1, "b": 1}))

        def call_fresh(prompt):
            return tool_call_response(("fresh", {}))

        def answer(prompt):
            message = prompt.messages[-1]
            assert isinstance(message, ToolResponseMessage)
            return text_response(message.responses[0].response_data)

        model = ScriptedChatModel(
            [tool_call_response(("grow", {"name": "fresh"})), once_heard, call_fresh, answer]
        )
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        try:
            spec = client.prompt("go").tools(toolset).advisors(toolset.refresh_advisor())
            assert await spec.call().acontent() == "I am fresh"
        finally:
            await toolset.aclose()
            toolset.close_all()
        first = tool_names(model.prompts[0])
        assert "fresh" not in first
        # The new tool comes last; the tools before it keep their order (a warm prompt cache).
        assert tool_names(model.prompts[2]) == [*first, "fresh"] == tool_names(model.prompts[3])


async def test_a_ttl_that_runs_out_reads_the_tools_again_between_rounds():
    with serve_http(ttl_ms=200) as url:
        toolset = McpToolset([http_server(url)])

        def slow_sprout(prompt):
            time.sleep(0.3)  # the listing's ttlMs runs out during this round
            return tool_call_response(("sprout", {"name": "quiet"}))

        def call_quiet(prompt):
            return tool_call_response(("quiet", {}))

        model = ScriptedChatModel([slow_sprout, call_quiet, "done"])
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        try:
            spec = client.prompt("go").tools(toolset).advisors(toolset.refresh_advisor())
            assert await spec.call().acontent() == "done"
        finally:
            await toolset.aclose()
            toolset.close_all()
        # Nothing announced the quiet tool: the ttlMs running out is what found it.
        assert "quiet" not in tool_names(model.prompts[0])
        assert tool_names(model.prompts[1])[-1] == "quiet"
        answered = model.prompts[2].messages[-1]
        assert isinstance(answered, ToolResponseMessage)
        assert answered.responses[0].response_data == "I am quiet"


async def test_the_tool_order_stays_stable_when_the_server_reorders():
    from ostinato_mcp._listing import Listing

    class Tool:
        def __init__(self, name):
            self.name = name

    now = [0.0]
    listing = Listing(clock=lambda: now[0])
    listing.update([Tool("b"), Tool("a")], ttl_ms=0)
    assert not listing.needs_refresh and listing.fresh_until is None
    listing.update([Tool("c"), Tool("a"), Tool("b")], ttl_ms=1000)
    assert [t.name for t in listing.tools()] == ["b", "a", "c"]
    listing.update([Tool("a"), Tool("c")], ttl_ms=1000)
    assert [t.name for t in listing.tools()] == ["a", "c"]
    now[0] = 0.999
    assert not listing.needs_refresh
    now[0] = 1.0
    assert listing.needs_refresh
