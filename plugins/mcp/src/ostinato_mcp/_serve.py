"""ostinato as an MCP server: tools (and, optionally, the whole agent as one tool) offered
to other MCP clients over stdio or streamable HTTP, in both protocol revisions (the SDK's
server answers the ``initialize`` handshake and 2026-07-28's stateless requests).

:func:`build_mcp_server` makes the server; :func:`serve_stdio` and :func:`http_app` serve
it. ``ostinato mcp serve`` builds the client as ``ostinato chat`` does (``--tools``,
``--mcp``, ``--model``...) and serves its tools, plus the agent with ``--agent``.

A tool that requires approval is not offered: an MCP client cannot approve a call here.
A tool's failure is an ``isError`` result whose text the calling model reads. The tools
are listed in the order given (deterministic, so the caller's prompt cache stays warm).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from mcp import types
from mcp.server.lowlevel.server import Server

from ostinato.errors import ToolError
from ostinato.tools import PendingToolCalls, ToolCallback, ToolContext, tool_callbacks

__all__ = ["AGENT_TOOL", "build_mcp_server", "http_app", "serve_stdio"]

#: The name of the agent's tool (``--agent``).
AGENT_TOOL: Final = "ask_agent"
_AGENT_SCHEMA: Final = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "what to ask the agent"}},
    "required": ["message"],
}


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def _ask_agent(agent: Any, arguments: dict[str, Any]) -> types.CallToolResult:
    message = arguments.get("message")
    if not isinstance(message, str) or not message.strip():
        return _error(f'{AGENT_TOOL} needs {{"message": "..."}}')
    response = await agent.prompt(message).call().achat_client_response()
    pending = PendingToolCalls.of(response)
    if pending is not None:
        names = ", ".join(c.name for c in pending.calls)
        return _error(
            f"the agent's turn stopped: its calls to {names} wait for a decision, which an "
            f"MCP client cannot give; ask for something these tools are not needed for"
        )
    chat = response.chat_response
    return _text((chat.text if chat is not None else None) or "")


def build_mcp_server(
    tools: Sequence[object],
    *,
    agent: Any = None,
    name: str = "ostinato",
    instructions: str | None = None,
) -> Server[Any]:
    """An MCP server offering ``tools`` (callbacks, ``@tool`` functions, providers: what
    ``.tools(...)`` takes; those that need no approval) and, when ``agent`` (a
    ``ChatClient``) is given, the tool ``ask_agent`` that runs one turn of it.

    Raises:
        ValueError: two tools share a name.
    """
    callbacks = tool_callbacks(*tools)
    offered = [t for t in callbacks if not getattr(t.tool_metadata, "requires_approval", False)]
    by_name: dict[str, ToolCallback] = {}
    for tool in offered:
        tool_name = tool.tool_definition.name
        if tool_name in by_name or (agent is not None and tool_name == AGENT_TOOL):
            raise ValueError(f"two tools are named {tool_name!r}; an MCP server lists each once")
        by_name[tool_name] = tool
    listed = [
        types.Tool(
            name=t.tool_definition.name,
            description=t.tool_definition.description,
            input_schema=json.loads(t.tool_definition.input_schema or "{}") or {"type": "object"},
        )
        for t in offered
    ]
    if agent is not None:
        listed.append(
            types.Tool(
                name=AGENT_TOOL,
                description="Ask the agent: it answers with its own model and tools.",
                input_schema=_AGENT_SCHEMA,
            )
        )

    async def list_tools(context: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if agent is not None and params.name == AGENT_TOOL:
            return await _ask_agent(agent, arguments)
        tool = by_name.get(params.name)
        if tool is None:
            return _error(f"no tool {params.name!r}; tools: {', '.join(by_name) or 'none'}")
        try:
            return _text(await tool.call(json.dumps(arguments), ToolContext()))
        except ToolError as exc:
            return _error(str(exc) or type(exc).__name__)
        except Exception as exc:
            return _error(f"tool {params.name!r} failed: {type(exc).__name__}: {exc}")

    return Server(
        name,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(server: Server[Any], *, host: str = "127.0.0.1") -> Any:
    """``server`` as an ASGI app answering streamable HTTP at ``/mcp`` (run it with its
    lifespan on)."""
    return server.streamable_http_app(host=host)
