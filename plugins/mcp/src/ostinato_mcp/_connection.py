"""One live connection to one MCP server, on one event loop.

The SDK's client and transports are async context managers whose scopes must be entered
and left by one task, so a holder task opens them, publishes the client and waits to be
told to close. A call races the holder: when the server dies, the call fails at once
instead of waiting for its timeout.

The protocol revision is negotiated per server (the configuration's ``protocol``):
``auto`` probes ``server/discover`` (2026-07-28, stateless) and falls back to the
``initialize`` handshake (2025-11-25 and older); ``legacy`` forces the handshake; a
modern revision string adopts it without a probe. What changes on the server reaches
:class:`Connection`'s ``on_change`` either way: a handshake-era server's
``list_changed`` notifications, or a 2026-07-28 server's ``subscriptions/listen``
events. This module imports the MCP SDK; only the plugin's server object imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Literal

from mcp import types
from mcp.client import Client
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ostinato_mcp._config import McpServerConfig
from ostinato_mcp._lifetime import guarded_command

__all__ = ["Change", "Connection", "ServerGoneError", "describe", "innermost"]

_CLEANUP_SECONDS = 3.0

#: What changed on a server: its tools, prompts or resources.
Change = Literal["tools", "prompts", "resources"]


class ServerGoneError(Exception):
    """The connection to the server ended (the process exited, the HTTP session broke)."""


@contextlib.asynccontextmanager
async def _transport(config: McpServerConfig) -> AsyncIterator[tuple[Any, Any]]:
    if config.command is not None:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        command, args = guarded_command(
            config.command, config.args, config.env.get("PATH") or os.environ.get("PATH")
        )
        parameters = StdioServerParameters(
            command=command,
            args=args,
            env=dict(config.env) or None,
            cwd=config.cwd,
        )
        async with stdio_client(parameters, errlog=sys.stderr) as streams:
            yield streams
        return
    assert config.url is not None
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers=dict(config.headers) or None)
    async with client:
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(config.url, headers=dict(config.headers) or None) as streams:
                yield streams[0], streams[1]
            return
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(config.url, http_client=client) as streams:
            yield streams[0], streams[1]


def innermost(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (``exc`` itself when it is none)."""
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return innermost(exc.exceptions[0])
    return exc


def describe(exc: BaseException) -> tuple[str, str | None]:
    """What went wrong on one line, and the ``fix:`` line the error carries, if any."""
    exc = innermost(exc)
    text, _, fix = str(exc).strip().partition("\nfix: ")
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__), (fix or None)


_NOTIFIED: dict[type, Change] = {
    types.ToolListChangedNotification: "tools",
    types.PromptListChangedNotification: "prompts",
    types.ResourceListChangedNotification: "resources",
}


class Connection:
    """A client of ``config``'s server held open by a task on the current loop.

    Args:
        config: the server.
        on_change: awaited (in a task of its own) with what changed on the server.
        elicitation: answers a handshake-era server's ``elicitation/create`` requests
            (``None``: they are declined).
    """

    def __init__(
        self,
        config: McpServerConfig,
        on_change: Callable[[Change], Coroutine[Any, Any, None]],
        elicitation: Any = None,
    ) -> None:
        self.config = config
        self._on_change = on_change
        self._elicitation = elicitation
        self._client: Client | None = None
        self._closing = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def alive(self) -> bool:
        """Whether the client is connected and its holder still runs."""
        return self._client is not None and self._holder is not None and not self._holder.done()

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol revision (``None`` before the connection is open)."""
        return self._client.protocol_version if self._client is not None else None

    @property
    def modern(self) -> bool:
        """Whether the revision is a stateless one (2026-07-28 and later)."""
        return self.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def open(self, startup_seconds: float) -> None:
        """Start the server (or connect to it) and negotiate the protocol revision.

        Raises:
            Exception: whatever starting or negotiating raised (``TimeoutError`` after
                ``startup_seconds``).
        """
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._holder = asyncio.create_task(self._hold(ready), name=f"mcp:{self.config.name}")
        try:
            async with asyncio.timeout(startup_seconds):
                await asyncio.shield(ready)
        except BaseException:
            await self.aclose()
            raise

    def _client_for(self) -> Client:
        from mcp.client.caching import CacheConfig

        from ostinato_mcp._tasks import TasksExtension

        return Client(
            _transport(self.config),
            mode=self.config.protocol,
            message_handler=self._message,
            elicitation_callback=self._elicitation,
            cache=CacheConfig(),
            extensions=[TasksExtension()],
        )

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        try:
            async with self._client_for() as client:
                self._client = client
                ready.set_result(None)
                if self.modern:
                    self._spawn(self._listen(client))
                await self._closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else ServerGoneError(str(exc))
                )
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            for task in list(self._tasks):
                task.cancel()
            if not ready.done():
                ready.set_exception(ServerGoneError("the connection ended before it was ready"))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _listen(self, client: Client) -> None:
        """Hear a 2026-07-28 server's changes through ``subscriptions/listen``."""
        from mcp.client.subscriptions import (
            PromptsListChanged,
            ResourcesListChanged,
            ToolsListChanged,
        )

        capabilities = client.server_capabilities
        wanted = {
            "tools_list_changed": bool(capabilities.tools and capabilities.tools.list_changed),
            "prompts_list_changed": bool(
                capabilities.prompts and capabilities.prompts.list_changed
            ),
            "resources_list_changed": bool(
                capabilities.resources and capabilities.resources.list_changed
            ),
        }
        if not any(wanted.values()):
            return
        kinds: dict[type, Change] = {
            ToolsListChanged: "tools",
            PromptsListChanged: "prompts",
            ResourcesListChanged: "resources",
        }
        with contextlib.suppress(Exception):
            async with client.listen(
                tools_list_changed=wanted["tools_list_changed"],
                prompts_list_changed=wanted["prompts_list_changed"],
                resources_list_changed=wanted["resources_list_changed"],
            ) as subscription:
                async for event in subscription:
                    change = kinds.get(type(event))
                    if change is not None:
                        self._spawn(self._on_change(change))

    async def _message(self, message: Any) -> None:
        change = _NOTIFIED.get(type(getattr(message, "root", message)))
        if change is not None:
            self._spawn(self._on_change(change))

    async def run(self, operation: Callable[[Client], Awaitable[Any]]) -> Any:
        """``operation(client)``, failing with :class:`ServerGoneError` when the
        connection ends first."""
        client, holder = self._client, self._holder
        if client is None or holder is None or holder.done():
            raise ServerGoneError("not connected")
        call = asyncio.ensure_future(operation(client))
        try:
            await asyncio.wait({call, holder}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            call.cancel()  # given a moment to clean up (a task it polls is cancelled)
            await asyncio.wait({call}, timeout=_CLEANUP_SECONDS)
            raise
        if call.done():
            return call.result()
        call.cancel()
        raise ServerGoneError("the connection to the server ended during the call")

    async def aclose(self) -> None:
        """End the connection and stop the server (a stdio server's process is waited for)."""
        self._closing.set()
        holder, self._holder = self._holder, None
        if holder is not None and not holder.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await holder
