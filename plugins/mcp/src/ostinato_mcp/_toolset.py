"""Several MCP servers as one source of tools, with the rule that keeps their tool names
apart, started on first use.

A toolset given to a client (``.tools(toolset)``, or the ``mcp`` tool set of
auto-configured clients) starts nothing until a request needs its tools: the client
awaits :meth:`McpToolset.aget_tool_callbacks` before it builds the request, which lists
the servers' tools once, on ostinato's private loop (whose sessions then serve every
loop). A server that cannot start is left out with an :class:`McpServerUnavailableWarning`.

Naming (``prefix``): ``"clashes"`` (the default) prefixes ``<server>_`` to the tools whose
name another server also offers, and leaves the others as the server names them;
``"always"`` prefixes every tool; ``"never"`` prefixes none and makes a clash an error. A
server's own ``toolPrefix`` wins over the rule.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import re
import threading
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from ostinato.errors import ConfigurationError, ToolExecutionError
from ostinato_mcp._config import McpServerConfig, load_mcp_config
from ostinato_mcp._resource_tools import McpResourceTool, resource_tools
from ostinato_mcp._server import McpServer
from ostinato_mcp._tool import McpTool

if TYPE_CHECKING:
    from ostinato_mcp._refresh import McpToolRefreshAdvisor

__all__ = ["PREFIX_RULES", "McpServerUnavailableWarning", "McpToolset", "PrefixRule"]

#: How tool names of several servers are kept apart (see the module).
PrefixRule = Literal["clashes", "always", "never"]
PREFIX_RULES: Final = ("clashes", "always", "never")
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


class McpServerUnavailableWarning(UserWarning):
    """A configured MCP server could not start when its tools were listed: its tools are
    not offered (the message says why, and how to look into it)."""


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
        self._listed = False
        # The first listing on the private loop, awaited by every request until it is done.
        self._listing: concurrent.futures.Future[list[McpTool | McpResourceTool]] | None = None
        self._listing_lock = threading.Lock()

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

    def get_tool_callbacks(self) -> list[McpTool | McpResourceTool]:
        """The tools of every server as last listed, named by the prefix rule (and the
        resource tools of the servers whose ``resource_tools`` is set)."""
        named = [
            (server, tool, server.config.tool_prefix)
            for server in self.servers
            for tool in server.tools("")
        ]
        counts = Counter((prefix or "") + tool.tool_metadata.tool_name for _, tool, prefix in named)
        tools: list[McpTool | McpResourceTool] = []
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
        for server in self.servers:
            if server.config.resource_tools and server.name not in self.failures:
                tools.extend(resource_tools(server, _prefix_of(server)))
        return tools

    @property
    def needs_refresh(self) -> bool:
        """Whether a server's tools must be read again (see :meth:`refresh`)."""
        return any(s.needs_refresh for s in self.servers if s.name not in self.failures)

    async def refresh(self) -> list[McpTool | McpResourceTool]:
        """Read again the tools of the servers that announced a change or whose
        ``ttlMs`` ran out; a server that fails keeps its last listing. The tools, named
        by the prefix rule (in a stable order: see the servers' listings)."""
        stale = [s for s in self.servers if s.needs_refresh and s.name not in self.failures]
        await asyncio.gather(*(s.list_tools() for s in stale), return_exceptions=True)
        return self.get_tool_callbacks()

    async def list_tools(self) -> list[McpTool | McpResourceTool]:
        """Start every server (at once), read their tools, and return them named by the
        prefix rule. A server that cannot start is left out, kept in :attr:`failures` and
        warned about (:class:`McpServerUnavailableWarning`)."""
        results = await asyncio.gather(
            *(server.list_tools() for server in self.servers), return_exceptions=True
        )
        self.failures = {}
        for server, result in zip(self.servers, results):
            if isinstance(result, ToolExecutionError):
                self.failures[server.name] = result
                problem, _, own_fix = str(result).partition("\nfix: ")
                warnings.warn(
                    f"{problem} (they are not offered to the model)\n"
                    f"fix: {own_fix + '; ' if own_fix else ''}`ostinato mcp list` shows each "
                    f"server and why it does not start; correct or disable the server "
                    f"{server.name!r} in the mcpServers file",
                    McpServerUnavailableWarning,
                    stacklevel=2,
                )
            elif isinstance(result, BaseException):
                raise result
        self._listed = True
        return self.get_tool_callbacks()

    async def aget_tool_callbacks(self) -> list[McpTool | McpResourceTool]:
        """The tools, listed first if they never were and read again where they are
        stale: what a client awaits before it builds a request. The first listing starts
        the servers on ostinato's private loop (once, however many requests ask at the
        same time); their sessions are closed when the interpreter exits."""
        if not self._listed:
            # Shielded: a request cancelled while it waits leaves the listing to the others.
            await asyncio.shield(asyncio.wrap_future(self._first_listing()))
        elif self.needs_refresh:
            from ostinato.runtime import get_private_loop

            await asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(self.refresh(), get_private_loop())
            )
        return self.get_tool_callbacks()

    def refresh_advisor(self) -> McpToolRefreshAdvisor:
        """An advisor that, inside the tool loop, reads the tools again before each
        round where they are stale (a ``list_changed`` heard, a ``ttlMs`` run out), so a
        turn's next round offers the tools as they are now."""
        from ostinato_mcp._refresh import McpToolRefreshAdvisor

        return McpToolRefreshAdvisor(self)

    def _first_listing(self) -> concurrent.futures.Future[list[McpTool | McpResourceTool]]:
        from ostinato.runtime import get_private_loop

        with self._listing_lock:
            if self._listing is None or self._listing.cancelled():
                self._listing = asyncio.run_coroutine_threadsafe(
                    self.list_tools(), get_private_loop()
                )
                self._close_at_exit()
            return self._listing

    def list_tools_sync(self) -> list[McpTool | McpResourceTool]:
        """:meth:`list_tools` from synchronous code, on ostinato's private loop (where the
        sync faces of a client run, so the sessions opened here serve them). Those
        sessions are closed when the interpreter exits, before the private loop stops."""
        from ostinato.runtime import run_sync

        tools = run_sync(self.list_tools, async_name="list_tools")
        self._close_at_exit()
        return tools

    def _close_at_exit(self) -> None:
        if not self._closed_at_exit:
            self._closed_at_exit = True
            # Registered after the private loop's own exit handler, so it runs first.
            atexit.register(self.close_all)

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
