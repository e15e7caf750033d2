"""An MCP server written with the SDK for the tests: served over stdio
(``python demo_server.py``), streamable HTTP (:func:`serve_http`, in a thread) or the
legacy SSE transport (:func:`serve_sse`).

Its tools: ``add``, ``fail`` (answers ``isError``), ``wait`` (answers only when
released), ``pid`` (the server's process id), ``sprout`` (adds a tool silently), ``book`` (elicits who the seats are for), ``picture`` (an image), ``grow`` (adds a tool
and announces the new tool list: a notification on a handshake connection, a
``subscriptions/listen`` event on a 2026-07-28 one), ``meta`` (the ``_meta`` of its
request, as JSON) and ``many_N`` tools when started with
``--many N``. Its resources: ``demo://readme`` (text), ``demo://dot`` (a PNG) and the
template ``demo://notes/{topic}``. Its prompts: ``review`` (arguments ``language`` and
``code``) and ``greet``.
Over stdio it appends its process id to the file ``$DEMO_STARTS`` names, if any.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field


class Seats(BaseModel):
    """What ``book`` asks the user."""

    name: str = Field(description="who the seats are for")
    count: int = Field(default=1, ge=1, le=8, description="how many seats")


def ask_seats() -> Elicit[Seats]:
    return Elicit("Who are the seats for, and how many?", Seats)


def build(many: int = 0, ttl_ms: int = 0) -> MCPServer:
    from mcp.server.caching import CacheHint

    server = MCPServer("demo", cache_hints={"tools/list": CacheHint(ttl_ms=ttl_ms)})

    @server.tool(description="Add two integers")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Always fails")
    def fail(reason: str) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError(f"refused: {reason}")

    @server.tool(description="Blocks until stdin closes or the process is killed")
    def wait() -> str:
        threading.Event().wait()
        return "never"

    @server.tool(description="The server's process id")
    def pid() -> int:
        return os.getpid()

    @server.tool(description="The _meta of this request, as JSON")
    def meta(ctx: Context) -> str:
        import json

        received = ctx.request_context.meta
        return json.dumps(received if isinstance(received, dict) else dict(received or {}))

    @server.tool(description="A one-pixel picture")
    def picture() -> object:
        from mcp.types import ImageContent, TextContent

        return [
            TextContent(type="text", text="a red dot"),
            ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        ]

    @server.tool(description="Add a tool named after the argument and announce the change")
    async def grow(name: str, ctx: Context) -> str:
        def added() -> str:
            return f"I am {name}"

        server.add_tool(added, name=name, description=f"The new tool {name}")
        if ctx.protocol_version == "2026-07-28":
            await ctx.notify_tools_changed()
        else:
            await ctx.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool(description="Add a tool named after the argument without announcing it")
    def sprout(name: str) -> str:
        server.add_tool(lambda: f"I am {name}", name=name, description=f"The quiet tool {name}")
        return f"added {name} quietly"

    @server.tool(description="Book seats for a show; asks the user who for")
    def book(show: str, seats: Annotated[ElicitationResult[Seats], Resolve(ask_seats)]) -> str:
        if not isinstance(seats, AcceptedElicitation):
            return f"booking for {show} {seats.action}d"
        return f"booked {seats.data.count} seat(s) for {seats.data.name} at {show}"

    @server.resource("demo://readme", name="readme", mime_type="text/plain")
    def readme() -> str:
        return "The demo server: tools, resources and prompts for the tests."

    @server.resource("demo://dot", name="dot", mime_type="image/png")
    def dot() -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    @server.resource("demo://notes/{topic}", name="notes", description="Notes on a topic")
    def notes(topic: str) -> str:
        return f"Notes on {topic}: nothing yet."

    @server.prompt(description="Ask for a code review")
    def review(language: str, code: str) -> str:
        return f"Review this {language} code {{carefully}}:\n{code}"

    @server.prompt(description="A greeting")
    def greet() -> str:
        return "Say hello."

    for i in range(many):

        def make(i: int = i) -> object:
            def tool(query: str) -> str:
                return f"tool {i}: {query}"

            return tool

        server.add_tool(
            make(), name=f"many_{i}", description=f"Look up records of kind {i} (topic t{i})"
        )
    return server


@contextmanager
def serve_http(many: int = 0, ttl_ms: int = 0) -> Iterator[str]:
    """Serve a fresh demo server on a loopback port; yields its URL."""
    from tests.uvicorn_loopback import serve_on_loopback

    app = build(many, ttl_ms).streamable_http_app()
    with serve_on_loopback(app, lifespan="on") as url:
        yield f"{url}/mcp"


@contextmanager
def serve_sse() -> Iterator[str]:
    """Serve a fresh demo server over the legacy SSE transport on a loopback port; yields
    the URL of its event stream."""
    from tests.uvicorn_loopback import serve_on_loopback

    with serve_on_loopback(build().sse_app()) as url:
        yield f"{url}/sse"


if __name__ == "__main__":
    if os.environ.get("DEMO_STARTS"):  # a test counts the server's starts
        with open(os.environ["DEMO_STARTS"], "a") as starts:
            starts.write(f"{os.getpid()}\n")
    many = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[1] == "--many" else 0
    build(many).run("stdio")
