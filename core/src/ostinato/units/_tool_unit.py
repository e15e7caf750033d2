"""A tool call as a unit: :class:`ToolInvocation`.

Its outcome is the text the model reads or the :class:`~ostinato.errors.ToolError` the
call failed with; deciding what the model reads of a failure is the tool calling
manager's (its exception processor). :meth:`ToolInvocation.run` calls the tool once and
turns what it raised into that outcome. Only a cancellation of the turn,
``KeyboardInterrupt`` and ``SystemExit`` escape: an ``asyncio.CancelledError``,
``GeneratorExit`` or ``StopIteration`` the tool raised itself is its failure like any
other (see :mod:`ostinato.units._failure`). The timeout, the concurrency cap and the
tool events are core's wrappers around it (``ostinato.tools``). This module imports
``asyncio``: it loads with the first tool call, on the running loop.
"""

from __future__ import annotations

from asyncio import current_task
from typing import TYPE_CHECKING, Any, ClassVar

from ostinato.errors import (
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from ostinato.units._codecs import TOOL_OUTCOME
from ostinato.units._failure import describe_exception, tool_failure
from ostinato.units._unit import _BOUND, _TURN, TurnScope, Unit, UnitCodec, UnitKind

if TYPE_CHECKING:
    import asyncio

    from ostinato._tool_contract import ToolCallback, ToolContext, ToolEffect
    from ostinato.messages import ToolCall

__all__ = ["ToolInvocation", "call_tool", "failed"]

# Failures a callback reports on purpose; anything else it raises is wrapped first.
_REPORTED = (ToolNotFoundError, ToolArgumentsError, ToolExecutionError, ToolTimeoutError)


class ToolInvocation(Unit["str | ToolError"]):
    """One tool call that will run.

    Args:
        call: the call the model asked for.
        callback: the tool that runs it.
        arguments: the arguments as JSON text (blank arguments already made ``"{}"``).
        context: the tool context handed to the tool.
        timeout: the tool's timeout in seconds (``None``: none), which core's timeout
            wrapper applies.
        return_direct: whether the tool's result is the turn's answer.
        sequential: whether the call runs alone (the manager cuts the batch there).
        index: its place in the batch (the model's call order).
        semaphore: the batch's concurrency cap, which core's concurrency wrapper
            acquires (``None``: no cap).
        events: what tells the batch's listeners of the call (the tool loop events),
            used by core's event wrapper (``None``: nobody listens).
        scope: the caller's turn, used when no turn scope is current.
        effect: the tool's effect class (``None``: undeclared), read by the wrappers
            that act on it (a durable recorder's in-doubt guard, tracing).
        retry: the policy retrying the call's retryable failures (an
            :class:`~ostinato.tools.EffectPolicy`), read by core's retry wrapper
            (``None``: no retry; only read-only and idempotent calls get one).

    Attributes:
        eager: the task of the call started early while its round still streamed
            (``None``: none); :meth:`run` takes its outcome once instead of calling.
    """

    __slots__ = (
        "arguments",
        "call",
        "callback",
        "context",
        "eager",
        "effect",
        "events",
        "index",
        "retry",
        "return_direct",
        "semaphore",
        "sequential",
        "timeout",
    )

    kind: ClassVar[UnitKind] = UnitKind.TOOL_CALL
    codec: ClassVar[UnitCodec[Any]] = TOOL_OUTCOME

    def __init__(
        self,
        call: ToolCall,
        callback: ToolCallback,
        arguments: str,
        context: ToolContext,
        timeout: float | None = None,
        return_direct: bool = False,
        sequential: bool = False,
        index: int = 0,
        semaphore: asyncio.Semaphore | None = None,
        events: Any = None,
        scope: TurnScope | None = None,
        effect: ToolEffect | None = None,
        retry: Any = None,
    ) -> None:
        self.call = call
        self.callback = callback
        self.arguments = arguments
        self.context = context
        self.timeout = timeout
        self.return_direct = return_direct
        self.sequential = sequential
        self.index = index
        self.semaphore = semaphore
        self.events = events
        self.effect = effect
        self.retry = retry
        self.eager: asyncio.Task[str | ToolError] | None = None
        # _numbered(call.name, scope), inlined: a batch makes one per call.
        self.name = call.name
        turn = _TURN.get()
        if turn is None:
            turn = scope
            if turn is None:
                bound = _BOUND.get()
                if bound is None:
                    self.sequence = 0
                    self.turn = None
                    return
                turn = bound[1]
        turn.units += 1
        self.sequence = turn.units
        self.turn = turn

    def describe(self) -> dict[str, Any]:
        """``{"call": call.to_dict()}``."""
        return {"call": self.call.to_dict()}

    def decode(self, data: Any) -> str | ToolError:
        """A recorded outcome; a call recorded as asking for input asks again, so the
        replayed batch stops for it as the first run did."""
        outcome: str | ToolError = TOOL_OUTCOME.decode(data)
        if "input" in data:
            from ostinato.tools._input import recorded_input_request

            recorded_input_request(self.call.id, data["input"])
        return outcome

    async def run(self) -> str | ToolError:
        """Call the tool once: its text, or the ``ToolError`` describing its failure (the
        outcome of the early start, the first time, when the call was started early)."""
        eager = self.eager
        if eager is not None:
            self.eager = None
            outcome: str | ToolError = await eager
            return outcome
        # call_tool(), inlined: one coroutine less per call on the hot path.
        name = self.call.name
        task = current_task()
        try:
            result: object = await self.callback.call(self.arguments, self.context)
        except BaseException as error:
            return failed(error, task, name)
        if result is None:
            return ""
        return result if isinstance(result, str) else str(result)


async def call_tool(
    callback: ToolCallback, arguments: str, context: ToolContext, name: str
) -> str | ToolError:
    """Call ``callback`` once: its text, or the ``ToolError`` describing its failure
    (only a cancellation of the turn, ``KeyboardInterrupt`` and ``SystemExit`` escape)."""
    task = current_task()
    try:
        result: object = await callback.call(arguments, context)
    except BaseException as error:
        return failed(error, task, name)
    if result is None:
        return ""
    return result if isinstance(result, str) else str(result)


def failed(error: BaseException, task: asyncio.Task[Any] | None, name: str) -> ToolError:
    """What the call of tool ``name`` that raised ``error`` in ``task`` failed with: a
    failure the tool reports on purpose as it is (named), anything else wrapped in a
    ``ToolExecutionError``; a cancellation of the turn, ``KeyboardInterrupt`` and
    ``SystemExit`` are raised again (only on the failure path: no cost to a call that
    returns)."""
    if isinstance(error, _REPORTED):
        if error.tool_name is None:
            error.tool_name = name
        return error
    failure = tool_failure(error, task)
    if failure is None:
        raise error  # the turn is cancelled (or the timeout stops the call), or exiting
    wrapped = ToolExecutionError(describe_exception(failure), tool_name=name)
    wrapped.__cause__ = failure
    wrapped.__suppress_context__ = True
    return wrapped
