"""An MCP server (built with the SDK) whose ``report`` tool runs as a task: the tasks
extension of the 2026-07-28 revision, served through the SDK's extension surface (the
SDK defines no types for it): ``tools/call`` of ``report`` answers a task handle and
the work goes on in the server; ``tasks/get`` tells its state, ``tasks/result`` its
result, ``tasks/cancel`` stops it.

A task completes at the ``polls``-th ``tasks/get`` (its argument, default 2), or, when
the test holds its turn (:meth:`Board.hold`), once released. A client that does not
offer the extension (a handshake connection) gets the report at once. ``reserve`` asks
the user who the seats are for (an elicitation), then counts a start. :class:`Board` counts what
the tests check: the starts of the work (its side effect) and the polls, per turn.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import RequestParams
from pydantic import Field

from tests.plugins.mcp.demo_server import Seats, ask_seats

__all__ = ["Board", "serve_tasks"]


class _TaskParams(RequestParams):
    task_id: str = Field(alias="taskId")


class Board:
    """What the server did, per turn, and the turns the test holds."""

    def __init__(self) -> None:
        self.starts: Counter[str] = Counter()
        self.polls: Counter[str] = Counter()
        self.cancelled: list[str] = []
        self.held: dict[str, threading.Event] = {}
        self.polled: dict[str, threading.Event] = {}

    def hold(self, turn: str) -> None:
        """Keep ``turn``'s task working until :meth:`release`."""
        self.held[turn] = threading.Event()
        self.polled[turn] = threading.Event()

    def release(self, turn: str) -> None:
        """Let ``turn``'s task complete at its next poll."""
        self.held[turn].set()


class Tasks(Extension):
    """The tasks extension, for the tool ``report``."""

    identifier = "io.modelcontextprotocol/tasks"

    def __init__(self, board: Board) -> None:
        self.board = board
        self.tasks: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)

    def _state(self, task_id: str) -> dict[str, Any]:
        task = self.tasks[task_id]
        return {
            "taskId": task_id,
            "status": task["status"],
            "createdAt": "2026-07-28T00:00:00Z",
            "lastUpdatedAt": "2026-07-28T00:00:00Z",
            "ttl": None,
            "pollInterval": 20,
        }

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        capabilities = ctx.session.client_capabilities
        offered = capabilities.extensions if capabilities is not None else None
        if params.name != "report" or self.identifier not in (offered or {}):
            return await call_next(ctx)  # a client without the extension: the plain way
        arguments = params.arguments or {}
        turn = str(arguments.get("turn", ""))
        self.board.starts[turn] += 1  # the side effect: the work starts
        task_id = f"task-{next(self._ids)}"
        self.tasks[task_id] = {"status": "working", "turn": turn, "left": arguments.get("polls", 2)}
        return {"resultType": "task", "task": self._state(task_id)}

    async def _get(self, ctx: Any, params: _TaskParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        turn = task["turn"]
        self.board.polls[turn] += 1
        if turn in self.board.polled:
            self.board.polled[turn].set()
        held = self.board.held.get(turn)
        if task["status"] == "working" and (held is None or held.is_set()):
            task["left"] -= 1
            if task["left"] <= 0 or held is not None:
                task["status"] = "completed"
        return self._state(params.task_id)

    async def _result(self, ctx: Any, params: _TaskParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        text = f"report for {task['turn']} ready"
        return {"content": [{"type": "text", "text": text}], "isError": False}

    async def _cancel(self, ctx: Any, params: _TaskParams) -> dict[str, Any]:
        self.tasks[params.task_id]["status"] = "cancelled"
        self.board.cancelled.append(params.task_id)
        return self._state(params.task_id)

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", _TaskParams, self._get),
            MethodBinding("tasks/result", _TaskParams, self._result),
            MethodBinding("tasks/cancel", _TaskParams, self._cancel),
        ]


def build(board: Board) -> MCPServer:
    server = MCPServer("tasks", extensions=[Tasks(board)])

    @server.tool(description="Write the report of a turn (a long-running task)")
    def report(turn: str, polls: int = 2) -> str:
        board.starts[turn] += 1
        return f"report for {turn} ready, without a task"

    @server.tool(description="Add two integers")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Reserve seats for a turn; asks the user who for")
    def reserve(turn: str, seats: Annotated[ElicitationResult[Seats], Resolve(ask_seats)]) -> str:
        if not isinstance(seats, AcceptedElicitation):
            return f"reservation for {turn} {seats.action}d"
        board.starts[turn] += 1
        return f"reserved {seats.data.count} seat(s) for {seats.data.name} ({turn})"

    return server


@contextmanager
def serve_tasks(board: Board) -> Iterator[str]:
    """Serve a task server on a loopback port; yields its URL."""
    from tests.uvicorn_loopback import serve_on_loopback

    with serve_on_loopback(build(board).streamable_http_app(), lifespan="on") as url:
        yield f"{url}/mcp"
