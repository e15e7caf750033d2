"""One live session with one MCP server, on one event loop.

The SDK's transports and sessions are async context managers whose scopes must be entered
and left by one task, so a holder task opens them, publishes the session and waits to be
told to close. A call races the holder: when the server dies, the call fails at once
instead of waiting for its timeout. This module imports the MCP SDK; only the plugin's
server object imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

from mcp import types
from mcp.client.session import ClientSession

from ostinato_mcp._config import McpServerConfig
from ostinato_mcp._lifetime import guarded_command

__all__ = ["Connection", "ServerGoneError"]


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


class Connection:
    """A session with ``config``'s server held open by a task on the current loop."""

    def __init__(
        self, config: McpServerConfig, on_tools_changed: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        self.config = config
        self._on_tools_changed = on_tools_changed
        self._session: ClientSession | None = None
        self._closing = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        """Whether the session is open and its holder still runs."""
        return self._session is not None and self._holder is not None and not self._holder.done()

    async def open(self, startup_seconds: float) -> None:
        """Start the server (or connect to it) and initialise the session.

        Raises:
            Exception: whatever starting or initialising raised (``TimeoutError`` after
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

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        try:
            async with (
                _transport(self.config) as (read, write),
                ClientSession(read, write, message_handler=self._message) as session,
            ):
                await session.initialize()
                self._session = session
                ready.set_result(None)
                await self._closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else ServerGoneError(str(exc))
                )
            if not isinstance(exc, Exception):
                raise
        finally:
            self._session = None
            if not ready.done():
                ready.set_exception(ServerGoneError("the connection ended before it was ready"))

    async def _message(self, message: Any) -> None:
        notification = getattr(message, "root", message)
        if isinstance(notification, types.ToolListChangedNotification):
            asyncio.get_running_loop().create_task(self._on_tools_changed())

    async def run(self, operation: Callable[[ClientSession], Awaitable[Any]]) -> Any:
        """``operation(session)``, failing with :class:`ServerGoneError` when the
        connection ends first."""
        session, holder = self._session, self._holder
        if session is None or holder is None or holder.done():
            raise ServerGoneError("not connected")
        call = asyncio.ensure_future(operation(session))
        try:
            await asyncio.wait({call, holder}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            call.cancel()
            raise
        if call.done():
            return call.result()
        call.cancel()
        raise ServerGoneError("the connection to the server ended during the call")

    async def aclose(self) -> None:
        """End the session and stop the server (a stdio server's process is waited for)."""
        self._closing.set()
        holder, self._holder = self._holder, None
        if holder is not None and not holder.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await holder
