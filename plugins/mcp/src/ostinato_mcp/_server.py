"""An MCP server as an application holds it: started on first use, one session per event
loop, restarted after it dies, closed with :meth:`McpServer.aclose`.

The session opened on ostinato's private loop (by the sync faces, or by the ``mcp`` tool
set listing the tools) serves every other loop too, while that loop runs: a program that
lists the tools there and runs its turns on a loop of its own (``ostinato chat``) starts
each server once, not once per loop.

Every failure of a call (the server cannot start, dies, does not answer in time, answers
``isError``) is a :class:`~ostinato.errors.ToolExecutionError` the model reads; the turn
goes on, and the next call starts the server again.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Literal, TypeVar

from mcp import types
from mcp.shared.exceptions import MCPError

from ostinato.errors import ToolExecutionError
from ostinato.runtime import is_private_loop_thread
from ostinato.tools import InputAnswer, ToolInputRequired
from ostinato_mcp._catalog import Catalog
from ostinato_mcp._config import Approval, McpServerConfig
from ostinato_mcp._connection import Change, Connection, ServerGoneError, describe
from ostinato_mcp._elicitation import call_answering_input, decline_elicitation
from ostinato_mcp._listing import Listing
from ostinato_mcp._results import DEFAULT_MAX_RESULT_CHARS, result_text
from ostinato_mcp._tasks import TaskNote, run_call
from ostinato_mcp._tool import McpTool, build_tool
from ostinato_mcp._trace import trace_meta

__all__ = ["McpServer"]

T = TypeVar("T")


async def _list_page(client: Any, *, cursor: str | None) -> types.ListToolsResult:
    # "refresh": asked for when stale; the SDK's cache keeps it (2026-07-28 header mismatch).
    result: types.ListToolsResult = await client.list_tools(cursor=cursor, cache_mode="refresh")
    return result


class McpServer(Catalog):
    """One MCP server, usable as a source of tools, resources and prompts.

    Give a :class:`~ostinato_mcp.McpServerConfig`, or its fields as keywords::

        time = McpServer(name="time", command="uvx", args=["mcp-server-time"])
        async with time:
            tools = await time.list_tools()
            answer = await client.prompt("Time in Tokyo?").tools(*tools).call().acontent()

    Args:
        config: the server; or leave it out and pass the fields below.
        startup_timeout: seconds starting the server and initialising the session may take.
        max_result_chars: the longest result text handed to the model.
    """

    def __init__(
        self,
        config: McpServerConfig | None = None,
        *,
        name: str | None = None,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        transport: Literal["stdio", "http", "sse"] | None = None,
        timeout: float = 60.0,
        tool_prefix: str | None = None,
        require_approval: Approval = "never",
        allowed_tools: Sequence[str] | None = None,
        protocol: str = "auto",
        resource_tools: bool = False,
        startup_timeout: float = 30.0,
        max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
    ) -> None:
        if config is None:
            if name is None:
                raise ValueError("McpServer needs a config or a name")
            config = McpServerConfig(
                name=name,
                command=command,
                args=tuple(args),
                env=dict(env or {}),
                cwd=cwd,
                url=url,
                headers=dict(headers or {}),
                transport=transport or ("stdio" if command is not None else "http"),
                timeout=timeout,
                tool_prefix=tool_prefix,
                require_approval=require_approval
                if isinstance(require_approval, str)
                else tuple(require_approval),
                allowed_tools=None if allowed_tools is None else tuple(allowed_tools),
                protocol=protocol,
                resource_tools=resource_tools,
            )
        self.config = config
        self.startup_timeout = startup_timeout
        self.max_result_chars = max_result_chars
        self._connections: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Connection] = (
            weakref.WeakKeyDictionary()
        )
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._listing = Listing()
        self._listeners: list[Callable[[McpServer], object]] = []
        self._change_listeners: list[Callable[[McpServer, Change], object]] = []
        # ostinato's private loop, once a session was opened there (see the module).
        self._private: weakref.ref[asyncio.AbstractEventLoop] | None = None

    @property
    def name(self) -> str:
        """The server's name."""
        return self.config.name

    def __repr__(self) -> str:
        return f"McpServer({self.name!r}, {self.config.target!r})"

    async def __aenter__(self) -> McpServer:
        await self._connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def _connect(self) -> Connection:
        loop = asyncio.get_running_loop()
        lock = self._locks.setdefault(loop, asyncio.Lock())
        async with lock:
            connection = self._connections.get(loop)
            if connection is not None and connection.alive:
                return connection
            if connection is not None:
                await connection.aclose()
            connection = Connection(self.config, self._changed, decline_elicitation)
            await connection.open(self.startup_timeout)
            self._connections[loop] = connection
            if is_private_loop_thread():
                self._private = weakref.ref(loop)
            return connection

    async def _on_private_loop(self, work: Coroutine[Any, Any, T]) -> T | None:
        """``work`` run on ostinato's private loop when that loop holds this server's
        session and the caller runs on another loop; ``None`` (``work`` closed unrun)
        otherwise."""
        private = self._private() if self._private is not None else None
        if (
            private is None
            or private is asyncio.get_running_loop()
            or not private.is_running()
            or private not in self._connections
        ):
            work.close()
            return None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, private))

    async def _drop(self, connection: Connection) -> None:
        loop = asyncio.get_running_loop()
        if self._connections.get(loop) is connection:
            del self._connections[loop]
        await connection.aclose()

    async def _changed(self, change: Change) -> None:
        for listener in list(self._change_listeners):
            listener(self, change)
        if change != "tools":
            return
        self._listing.stale = True
        try:
            await self.list_tools()
        except Exception:
            return  # the next call or listing reports it
        for tools_listener in list(self._listeners):
            tools_listener(self)

    def on_tools_changed(self, listener: Callable[[McpServer], object]) -> None:
        """Call ``listener(server)`` after the server announced a new tool list and it was
        read again."""
        self._listeners.append(listener)

    def on_change(self, listener: Callable[[McpServer, Change], object]) -> None:
        """Call ``listener(server, what)`` when the server announces that its
        ``"tools"``, ``"prompts"`` or ``"resources"`` changed (before they are read again)."""
        self._change_listeners.append(listener)

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision negotiated on this loop's connection (``None`` before it
        is open)."""
        versions = (c.protocol_version for c in list(self._connections.values()) if c.alive)
        return next(versions, None)

    @property
    def needs_refresh(self) -> bool:
        """Whether the tools were never listed, the server announced a change not yet
        read, or the last listing's ``ttlMs`` ran out."""
        return self._listing.needs_refresh

    async def refresh_tools(self) -> list[McpTool]:
        """:meth:`list_tools` when :attr:`needs_refresh`, else the tools as last listed."""
        if self.needs_refresh:
            return await self.list_tools()
        return self.tools()

    async def list_tools(self) -> list[McpTool]:
        """Start the server if needed and read its tools (every page).

        Raises:
            ToolExecutionError: the server could not be started or listed.
        """
        shared = await self._on_private_loop(self.list_tools())
        if shared is not None:
            return shared
        connection = await self._start(None)
        try:
            listed: list[types.Tool] = []
            ttl_ms: int | None = None
            cursor: str | None = None
            while True:
                page: types.ListToolsResult = await connection.run(
                    functools.partial(_list_page, cursor=cursor)
                )
                listed.extend(page.tools)
                if ttl_ms is None:
                    ttl_ms = getattr(page, "ttl_ms", None)
                cursor = page.next_cursor
                if not cursor:
                    break
        except (ServerGoneError, MCPError) as exc:
            await self._drop(connection)
            raise ToolExecutionError(
                f"MCP server {self.name!r} could not list its tools: {describe(exc)[0]}"
            ) from exc
        self._listing.update(listed, ttl_ms)
        return self.tools()

    def tools(self, prefix: str | None = None) -> list[McpTool]:
        """The tools of the last listing (empty before the first), named ``prefix + name``
        (``prefix`` defaults to the server's ``tool_prefix``)."""
        prefix = self.config.tool_prefix if prefix is None else prefix
        allowed = self.config.allowed_tools
        return [
            self._tool(tool, prefix or "")
            for tool in self._listing.tools()
            if allowed is None or tool.name in allowed
        ]

    def tool_named(self, tool: McpTool, prefix: str) -> McpTool:
        """``tool`` (one of :meth:`tools`) under the name ``prefix + its server name``."""
        listed = {t.name: t for t in self._listing.tools()}
        return self._tool(listed[tool.tool_metadata.tool_name], prefix)

    def _tool(self, tool: types.Tool, prefix: str) -> McpTool:
        return build_tool(self, tool, prefix)

    async def _start(self, model_name: str | None) -> Connection:
        try:
            return await self._connect()
        except Exception as exc:
            problem, fix = describe(exc)
            raise ToolExecutionError(
                f"MCP server {self.name!r} ({self.config.target}) could not start: "
                f"{problem}; its tools are unavailable until it starts"
                + (f"\nfix: {fix}" if fix else ""),
                tool_name=model_name,
            ) from exc

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        model_name: str | None = None,
        answer: InputAnswer | None = None,
        note: TaskNote | None = None,
    ) -> str:
        """Call the server's tool ``name``; the result as text (see the module). The
        current span's trace context travels in the request's ``_meta``. A task the
        server answers is polled to its end, its handle kept in a durable turn (``_tasks``).

        Args:
            name: the tool's name on the server.
            arguments: its arguments.
            model_name: the name the model knows it by (for errors).
            answer: the user's answer to the input this call asked for before.
            note: where a task handle is kept (default: the current unit's note).

        Raises:
            ToolInputRequired: the server asks the user for input (see ``_elicitation``).
            ToolExecutionError: the call failed; the message says how.
        """
        meta = trace_meta()
        if note is None:
            note = await TaskNote.current()
        shared = await self._on_private_loop(
            self.call_tool(name, arguments, model_name=model_name, answer=answer, note=note)
        )
        if shared is not None:
            return shared
        label = model_name or name
        connection = await self._start(label)
        try:
            async with asyncio.timeout(self.config.timeout) as scope:
                result: types.CallToolResult = await connection.run(
                    lambda client: run_call(
                        client,
                        (self.name, name),
                        lambda: call_answering_input(
                            client, self.name, name, arguments, answer, meta
                        ),
                        note,
                        lambda: scope.reschedule(None),  # a task runs as long as it takes
                    )
                )
        except (ToolInputRequired, ToolExecutionError):
            raise
        except TimeoutError:
            raise ToolExecutionError(
                f"MCP server {self.name!r} did not answer within {self.config.timeout:g} s",
                tool_name=label,
            ) from None
        except MCPError as exc:
            if not connection.alive or "closed" in str(exc).lower():
                await self._drop(connection)
                raise ToolExecutionError(
                    f"MCP server {self.name!r} stopped during the call ({exc}); "
                    f"it is started again on the next call",
                    tool_name=label,
                ) from exc
            raise ToolExecutionError(f"MCP server {self.name!r}: {exc}", tool_name=label) from exc
        except (ServerGoneError, Exception) as exc:
            await self._drop(connection)
            raise ToolExecutionError(
                f"MCP server {self.name!r} stopped during the call ({describe(exc)[0]}); "
                f"it is started again on the next call",
                tool_name=label,
            ) from exc
        text = result_text(result, self.max_result_chars)
        if result.is_error:
            raise ToolExecutionError(text, tool_name=label)
        return text

    async def request(self, what: str, operation: Callable[[Any], Awaitable[T]]) -> T:
        """``operation(client)`` on this server's connection (started if needed), within
        the server's timeout; ``what`` names it in errors (e.g. ``"read resource x"``).

        Raises:
            ToolExecutionError: the server could not start, failed, or did not answer.
        """
        shared = await self._on_private_loop(self.request(what, operation))
        if shared is not None:
            return shared
        connection = await self._start(None)
        try:
            async with asyncio.timeout(self.config.timeout):
                result: T = await connection.run(operation)
        except TimeoutError:
            raise ToolExecutionError(
                f"MCP server {self.name!r} did not {what} within {self.config.timeout:g} s"
            ) from None
        except MCPError as exc:
            raise ToolExecutionError(f"MCP server {self.name!r} could not {what}: {exc}") from exc
        except Exception as exc:
            await self._drop(connection)
            raise ToolExecutionError(
                f"MCP server {self.name!r} could not {what}: {describe(exc)[0]}"
            ) from exc
        return result

    async def aclose(self) -> None:
        """Close this loop's session and stop the server it started; sessions of other
        loops are closed by their loops (see :meth:`close_all`)."""
        loop = asyncio.get_running_loop()
        connection = self._connections.pop(loop, None)
        if connection is not None:
            await connection.aclose()

    def close_all(self) -> None:
        """Close the sessions of every loop from outside them (blocking), e.g. at exit."""
        for loop, connection in list(self._connections.items()):
            if loop.is_closed() or not loop.is_running():
                continue
            future = asyncio.run_coroutine_threadsafe(connection.aclose(), loop)
            try:
                future.result(timeout=10)
            except Exception:
                continue
        self._connections.clear()
