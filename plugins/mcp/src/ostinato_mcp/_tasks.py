"""Long-running tool calls as MCP tasks: a call answered with a task handle is polled
until the task ends, and its handle survives a crash of a durable turn.

On a 2026-07-28 connection Tasks are an extension (``io.modelcontextprotocol/tasks``),
which the installed SDK reserves (the ``resultType`` ``"task"``) but defines no types
or client helper for. ostinato advertises it and speaks it with the SDK's extension
surface (a result claim for ``"task"``, plain requests): a ``tools/call`` may be
answered with ``{"resultType": "task", "task": {"taskId", "status", "pollInterval",
...}}``; ``tasks/get`` (``{"taskId"}``) answers the task's state (the 2025-11-25
``Task`` fields); once it is ``completed`` (or ``failed``), ``tasks/result``
(``{"taskId"}``) answers the call's ``CallToolResult``; a call given up on sends
``tasks/cancel``. A task waiting for input (``input_required``) is not answered: the
call fails, saying so.

The handle is written to the turn's notes (:func:`~ostinato.units.unit_notes`, kept by a
durable engine) as soon as it arrives: a worker that restarts the call after a crash
reads it and polls the same task instead of calling the tool again.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

from mcp import types
from mcp.client.extension import ClientExtension, ResultClaim
from pydantic import BaseModel, ConfigDict, Field

from ostinato.errors import ToolExecutionError
from ostinato.units import UnitNotes, idempotency_key, unit_notes

__all__ = [
    "TASKS_EXTENSION",
    "TaskHandle",
    "TaskNote",
    "TaskState",
    "TasksExtension",
    "poll_task",
    "run_call",
]

#: The extension's identifier.
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
_ENDED: Final = frozenset({"completed", "failed", "cancelled"})
_DEFAULT_POLL_MS: Final = 500
_MAX_POLL_MS: Final = 5_000


class TaskState(BaseModel):
    """A task's state as ``tasks/get`` (and the handle) carry it."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval: int | None = Field(default=None, alias="pollInterval")


class TaskHandle(types.Result):
    """A ``tools/call`` answered with a task (``resultType`` ``"task"``)."""

    result_type: Literal["task"] = "task"
    task: TaskState


class _TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


class _TaskRequest(types.Request[_TaskParams, str]):
    method: str
    params: _TaskParams
    name_param = "taskId"


class _GetTaskResult(types.Result):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval: int | None = Field(default=None, alias="pollInterval")


async def _unresolved(result: TaskHandle, context: Any) -> types.CallToolResult:
    raise ToolExecutionError("a task handle reached the SDK's resolver (ostinato polls it)")


class TasksExtension(ClientExtension):
    """Advertises the tasks extension and has the SDK parse a task handle."""

    identifier = TASKS_EXTENSION

    def claims(self) -> tuple[ResultClaim[TaskHandle]]:
        """The ``"task"`` result of ``tools/call``."""
        return (ResultClaim(result_type="task", model=TaskHandle, resolve=_unresolved),)


async def _request(client: Any, method: str, task_id: str, result: type[Any]) -> Any:
    request = _TaskRequest(method=method, params=_TaskParams(taskId=task_id))
    return await client.session.send_request(request, result)


async def poll_task(client: Any, server: str, tool: str, task: TaskState) -> types.CallToolResult:
    """Poll ``task`` on ``client`` until it ends; its call's result.

    Raises:
        ToolExecutionError: the task was cancelled, or waits for input.
    """
    state = _GetTaskResult(
        taskId=task.task_id,
        status=task.status,
        statusMessage=task.status_message,
        pollInterval=task.poll_interval,
    )
    try:
        while state.status not in _ENDED:
            if state.status == "input_required":
                raise ToolExecutionError(
                    f"MCP server {server!r}: the task {state.task_id} of the call to {tool!r} "
                    "waits for input, which ostinato does not answer for tasks"
                )
            interval = state.poll_interval or _DEFAULT_POLL_MS
            await asyncio.sleep(min(interval, _MAX_POLL_MS) / 1000)
            state = await _request(client, "tasks/get", state.task_id, _GetTaskResult)
    except BaseException:
        if state.status not in _ENDED:
            await _cancel(client, state.task_id)
        raise
    if state.status == "cancelled":
        raise ToolExecutionError(
            f"MCP server {server!r} cancelled the task {state.task_id} of the call to {tool!r}"
            + (f": {state.status_message}" if state.status_message else "")
        )
    result: types.CallToolResult = await _request(
        client, "tasks/result", state.task_id, types.CallToolResult
    )
    return result


async def _cancel(client: Any, task_id: str) -> None:
    try:
        async with asyncio.timeout(2):
            await _request(client, "tasks/cancel", task_id, _GetTaskResult)
    except Exception:  # best effort: the call is given up on anyway
        pass


class TaskNote:
    """Where one call's task handle is kept in its durable turn (the turn's
    :func:`~ostinato.units.unit_notes`, under the call's idempotency key).

    Made where the call runs as a unit (:meth:`current`); written from whichever loop
    polls, in the unit's own context (a durable engine's notes may need it).
    """

    __slots__ = ("_context", "_key", "_loop", "_notes", "recorded")

    def __init__(self, notes: UnitNotes, key: str) -> None:
        self._notes = notes
        self._key = key
        self._loop = asyncio.get_running_loop()
        self._context = contextvars.copy_context()
        #: The task an earlier run of the call started, if any.
        self.recorded: TaskState | None = None

    @classmethod
    async def current(cls) -> TaskNote | None:
        """The note of the call running now as a unit of a durable turn (with the task
        an earlier run of it recorded), or ``None``."""
        notes, key = unit_notes(), idempotency_key()
        if notes is None or key is None:
            return None
        note = cls(notes, f"mcp-task {key}")
        kept = await notes.read(note._key)
        if isinstance(kept, dict) and isinstance(kept.get("taskId"), str):
            note.recorded = TaskState(taskId=kept["taskId"], status="working")
        return note

    async def write(self, value: dict[str, Any]) -> None:
        """Keep ``value`` (the handle) before returning."""
        if asyncio.get_running_loop() is self._loop:
            await self._notes.write(self._key, value)
            return
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._there(value), self._loop))

    async def _there(self, value: dict[str, Any]) -> None:
        write = self._notes.write(self._key, value)
        await asyncio.get_running_loop().create_task(write, context=self._context)


async def run_call(
    client: Any,
    names: tuple[str, str],
    call: Callable[[], Awaitable[Any]],
    note: TaskNote | None,
    on_task: Callable[[], None],
) -> types.CallToolResult:
    """The result of ``call()`` (a ``tools/call``); a task handle it answers is kept in
    ``note`` and polled to its end (``on_task()`` is told first). A task an earlier run
    recorded in ``note`` is polled instead of calling again. ``names``: the server's and
    the tool's."""
    server, tool = names
    if note is not None and note.recorded is not None:
        on_task()
        return await poll_task(client, server, tool, note.recorded)
    result = await call()
    if not isinstance(result, TaskHandle):
        assert isinstance(result, types.CallToolResult)
        return result
    on_task()
    if note is not None:
        await note.write({"taskId": result.task.task_id, "server": server, "tool": tool})
    return await poll_task(client, server, tool, result.task)
