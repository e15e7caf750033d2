"""Early start: a read-only call starts while its round still streams.

With ``EffectPolicy(eager_start=True)`` the stream loop hands each chunk of a round to
an :class:`EagerStarts`. Providers stream a round's tool calls one after another, each
in fragments carrying its index: once a fragment of a later call arrives, the earlier
call is complete, and so is a call whose arguments so far are a whole JSON object
(nothing but whitespace may follow one; if more came, the final arguments differ from
those it started with, and the started task is not used). A complete call starts at
once, as a task, when its tool (found among the request's tools by name) is read-only,
needs no approval and cannot ask for input, and its arguments are a JSON object. When
the round has ended, the tool calling manager takes the task of each call it runs
(:meth:`EagerStarts.take`: same tool, same arguments) and the call awaits it instead of
calling the tool: so the round takes about ``max(stream, tools)`` instead of their sum.

Nothing else changes: the call is still counted against the limits, told (its
``ToolStarted`` / ``ToolFinished``, once), timed out and traced when the batch runs it; a
task no call takes (a limit answered the call, the turn stopped for approvals) is
cancelled with the others when the round's tools are done, and the round's end — an
error, a cancellation, a reader who stops — cancels every task. A read-only call that
ran for nothing has no effect. Never in a durable turn: an engine replays a recorded
round as one chunk, so the early starts would differ from the recorded run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from ostinato._tool_contract import ToolCallback, ToolContext, ToolEffect
from ostinato.errors import ToolError
from ostinato.model import ChatResponse
from ostinato.tools._execution import EAGER
from ostinato.units._tool_unit import call_tool

__all__ = ["EAGER", "EagerStarts"]


class EagerStarts:
    """The early-started calls of one streamed round (see the module's docstring)."""

    __slots__ = ("_context", "_current", "_tasks", "_tools")

    def __init__(self, tools: Sequence[ToolCallback], context: ToolContext) -> None:
        self._tools = {t.tool_definition.name: t for t in tools if _eligible(t)}
        self._context = context
        # The call being streamed: [index, id, name, arguments so far].
        self._current: list[Any] | None = None
        self._tasks: dict[str, tuple[ToolCallback, str, asyncio.Task[str | ToolError]]] = {}

    @property
    def started(self) -> tuple[str, ...]:
        """The ids of the calls started early, in order."""
        return tuple(self._tasks)

    def see(self, chunk: ChatResponse | None) -> None:
        """Follow the tool-call fragments of one chunk of the round."""
        if chunk is None or not self._tools:
            return
        for generation in chunk.generations[:1]:
            for fragment in generation.output.tool_calls:
                current = self._current
                if (
                    current is not None
                    and fragment.index is not None
                    and (fragment.index != current[0])
                ):
                    self._complete(current)
                    current = None
                if current is None:
                    current = self._current = [fragment.index, "", "", ""]
                if fragment.id:
                    current[1] = fragment.id
                if fragment.name:
                    current[2] = fragment.name
                current[3] += fragment.arguments or ""
                if current[3].endswith("}"):  # a whole object already: start it now
                    self._complete(current)

    def _complete(self, call: list[Any]) -> None:
        _, call_id, name, arguments = call
        tool = self._tools.get(name)
        if tool is None or not call_id or call_id in self._tasks:
            return
        text = arguments if arguments.strip() else "{}"
        try:
            if not isinstance(json.loads(text), dict):
                return
        except ValueError:
            return
        task = asyncio.create_task(call_tool(tool, text, self._context, name))
        self._tasks[call_id] = (tool, text, task)

    def take(
        self, call_id: str, callback: ToolCallback, arguments: str
    ) -> asyncio.Task[str | ToolError] | None:
        """The task of the call ``call_id`` when it was started with this tool and these
        arguments (it is the caller's from now on), else ``None``."""
        found = self._tasks.get(call_id)
        if found is None or found[0] is not callback or found[1] != arguments:
            return None
        del self._tasks[call_id]
        return found[2]

    async def cancel(self) -> None:
        """Cancel every task not taken, and wait until they ended."""
        tasks = [task for _, _, task in self._tasks.values()]
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def _eligible(tool: ToolCallback) -> bool:
    metadata = tool.tool_metadata
    return (
        getattr(metadata, "effect", None) is ToolEffect.READ_ONLY
        and not metadata.requires_approval
        and not getattr(metadata, "may_ask_input", False)
    )
