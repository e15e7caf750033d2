"""Tools served by ostinato as an MCP server in the tests (``ostinato mcp serve``), and
that server on stdio when run as a script."""

from __future__ import annotations

import asyncio

from ostinato.tools import tool


@tool
def shout(text: str) -> str:
    """Say it loudly."""
    return text.upper() + "!"


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@tool(requires_approval=True)
def erase(path: str) -> str:
    """Erase a file (needs approval: never offered over MCP)."""
    return f"erased {path}"


TOOLS = [shout, divide, erase]

if __name__ == "__main__":
    from ostinato_mcp._serve import build_mcp_server, serve_stdio

    asyncio.run(serve_stdio(build_mcp_server(TOOLS)))
