"""The legacy SSE transport against a real SDK server over SSE on loopback, and the trace
context a tool call carries in its ``_meta`` when the OpenTelemetry plugin traces it."""

from __future__ import annotations

import json

import pytest
from opentelemetry.trace import format_span_id, format_trace_id

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_mcp import McpServer, parse_mcp_config
from ostinato_opentelemetry import instrumentation_wrappers
from tests.plugins.mcp.demo_server import serve_sse
from tests.plugins.opentelemetry.conftest import Recorded, recorded

__all__ = ["recorded"]

pytestmark = pytest.mark.asyncio(loop_scope="module")


def echo(prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(" | ".join(r.response_data for r in message.responses))


@pytest.mark.parametrize(
    ("protocol", "negotiated"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")]
)
async def test_a_server_on_the_legacy_sse_transport_lists_and_calls_its_tools(
    protocol: str, negotiated: str
):
    with serve_sse() as url:
        entry = {"url": url, "type": "sse", "protocol": protocol}
        [config] = parse_mcp_config({"mcpServers": {"old": entry}}).servers
        assert config.transport == "sse"
        server = McpServer(config)
        try:
            tools = {t.tool_definition.name: t for t in await server.list_tools()}
            assert {"add", "fail", "book"} <= set(tools)
            assert server.protocol_version == negotiated
            model = ScriptedChatModel([tool_call_response(("add", {"a": 20, "b": 22})), echo])
            client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
            assert await client.prompt("20+22?").tools(*tools.values()).call().acontent() == "42"
            with pytest.raises(Exception, match="refused: no"):
                await tools["fail"].call('{"reason": "no"}')
        finally:
            await server.aclose()


async def test_a_traced_tool_call_carries_its_span_s_traceparent_in_meta(
    recorded: Recorded, demo_url: str
):
    server = McpServer(name="demo", url=demo_url)
    try:
        tools = [t for t in await server.list_tools() if t.tool_definition.name == "meta"]
        model = ScriptedChatModel([tool_call_response(("meta", {})), echo])
        client = (
            ChatClient.builder(model, tool_advisor=ToolCallingAdvisor())
            .unit_wrappers(*instrumentation_wrappers())
            .build()
        )
        received = json.loads(await client.prompt("meta?").tools(*tools).call().acontent())
    finally:
        await server.aclose()

    version, trace_id, parent_id, flags = received["traceparent"].split("-")
    assert version == "00" and int(flags, 16) & 1  # sampled
    spans = {format_span_id(s.context.span_id): s for s in recorded.spans()}
    [tool_span] = [s for s in spans.values() if s.name == "execute_tool meta"]
    assert trace_id == format_trace_id(tool_span.context.trace_id)
    # The span the server joins is the tool call's, or one inside it (the SDK's own
    # client span of the request).
    span = spans[parent_id]
    while span is not tool_span:
        assert span.parent is not None, f"{span.name} is not inside the tool call's span"
        span = spans[format_span_id(span.parent.span_id)]
