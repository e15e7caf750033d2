"""Several MCP servers as one source of tools, with the rule that keeps their tool names
apart.

Naming (``prefix``): ``"clashes"`` (the default) prefixes ``<server>_`` to the tools whose
name another server also offers, and leaves the others as the server names them;
``"always"`` prefixes every tool; ``"never"`` prefixes none and makes a clash an error. A
server's own ``toolPrefix`` wins over the rule.
"""

from __future__ import annotations

import asyncio
import atexit
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final, Literal

from ostinato.errors import ConfigurationError, ToolExecutionError
from ostinato_mcp._config import McpServerConfig, load_mcp_config
from ostinato_mcp._server import McpServer
from ostinato_mcp._tool import McpTool

__all__ = ["PREFIX_RULES", "McpToolset", "PrefixRule"]

#: How tool names of several servers are kept apart (see the module).
PrefixRule = Literal["clashes", "always", "never"]
PREFIX_RULES: Final = ("clashes", "always", "never")
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


def _prefix_of(server: McpServer) -> str:
    return _UNSAFE.sub("_", server.name) + "_"


class McpToolset:
    """The tools of several MCP servers; a ``ToolCallbackProvider`` (``.tools(toolset)``
    sees the current tools at every call, including those a server added since).

    Args:
        servers: the servers (or their configurations).
        prefix: the naming rule (see the module).
    """

    def __init__(
        self, servers: Iterable[McpServer | McpServerConfig], *, prefix: PrefixRule = "clashes"
    ) -> None:
        if prefix not in PREFIX_RULES:
            raise ConfigurationError(
                f"MCP tool prefix rule {prefix!r} is unknown\n"
                f"fix: use one of {', '.join(PREFIX_RULES)}"
            )
        self.servers: tuple[McpServer, ...] = tuple(
            s if isinstance(s, McpServer) else McpServer(s) for s in servers
        )
        self.prefix: PrefixRule = prefix
        self.failures: dict[str, ToolExecutionError] = {}
        self._closed_at_exit = False

    @classmethod
    def from_config(
        cls,
        path: str | Path,
        *,
        servers: Sequence[str] | None = None,
        prefix: PrefixRule = "clashes",
    ) -> McpToolset:
        """The servers of an ``mcpServers`` file (only those named in ``servers``, if given).

        Raises:
            McpConfigError: the file, or one of the chosen servers, is broken; or
                ``servers`` names a server the file does not have.
        """
        config = load_mcp_config(path)
        chosen = list(config.servers)
        if servers is not None:
            names = {s.name for s in config.servers} | set(config.problems)
            missing = [n for n in servers if n not in names]
            if missing:
                from ostinato_mcp._config import McpConfigError

                raise McpConfigError(
                    f"{config.path}: no MCP server named {', '.join(map(repr, missing))}\n"
                    f"  servers in the file: {', '.join(sorted(names)) or 'none'}\n"
                    f"fix: correct OSTINATO_MCP_SERVERS or the file",
                    path=config.path,
                )
            problems = {n: p for n, p in config.problems.items() if n in servers}
            config = type(config)(
                config.path, tuple(s for s in chosen if s.name in servers), problems
            )
            chosen = list(config.servers)
        config.check()
        return cls(chosen, prefix=prefix)

    def get_tool_callbacks(self) -> list[McpTool]:
        """The tools of every server as last listed, named by the prefix rule."""
        named = [
            (server, tool, server.config.tool_prefix)
            for server in self.servers
            for tool in server.tools("")
        ]
        counts = Counter((prefix or "") + tool.tool_metadata.tool_name for _, tool, prefix in named)
        tools: list[McpTool] = []
        for server, tool, prefix in named:
            if prefix is None:
                clash = counts[tool.tool_metadata.tool_name] > 1
                wanted = self.prefix == "always" or (self.prefix == "clashes" and clash)
                prefix = _prefix_of(server) if wanted else ""
            tools.append(server.tool_named(tool, prefix))
        if self.prefix == "never":
            clashes = sorted(
                n for n, c in Counter(t.tool_definition.name for t in tools).items() if c > 1
            )
            if clashes:
                raise ConfigurationError(
                    f"MCP servers offer tools with one name: {', '.join(clashes)}\n"
                    f"fix: set the prefix rule to 'clashes' or 'always' "
                    f"(OSTINATO_MCP_TOOL_PREFIX), "
                    f"or give a server a 'toolPrefix'"
                )
        return tools

    async def list_tools(self) -> list[McpTool]:
        """Start every server (at once), read their tools, and return them named by the
        prefix rule. A server that cannot start is left out, warned about and kept in
        :attr:`failures`."""
        results = await asyncio.gather(
            *(server.list_tools() for server in self.servers), return_exceptions=True
        )
        self.failures = {}
        for server, result in zip(self.servers, results):
            if isinstance(result, ToolExecutionError):
                self.failures[server.name] = result
                warnings.warn(f"{result}; its tools are not offered", stacklevel=2)
            elif isinstance(result, BaseException):
                raise result
        return self.get_tool_callbacks()

    def list_tools_sync(self) -> list[McpTool]:
        """:meth:`list_tools` from synchronous code, on ostinato's private loop (where the
        sync faces of a client run, so the sessions opened here serve them). Those
        sessions are closed when the interpreter exits, before the private loop stops."""
        from ostinato.runtime import run_sync

        tools = run_sync(self.list_tools, async_name="list_tools")
        if not self._closed_at_exit:
            self._closed_at_exit = True
            # Registered after the private loop's own exit handler, so it runs first.
            atexit.register(self.close_all)
        return tools

    def close_all(self) -> None:
        """Close every server's sessions on every loop, from outside those loops."""
        for server in self.servers:
            server.close_all()

    async def __aenter__(self) -> McpToolset:
        await self.list_tools()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every server's session on this loop."""
        await asyncio.gather(*(server.aclose() for server in self.servers))

    def __repr__(self) -> str:
        return f"McpToolset({[s.name for s in self.servers]!r}, prefix={self.prefix!r})"
