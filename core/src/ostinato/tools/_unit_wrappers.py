"""Core's wrappers of tool calls, part of every unit stack, outer to inner:

* ``tool-concurrency`` (:attr:`~ostinato.units.UnitOrder.TOOL_CONCURRENCY`): a call
  waits for the batch's concurrency cap (``max_concurrency``);
* ``tool-events`` (:attr:`~ostinato.units.UnitOrder.TOOL_EVENTS`): ``ToolStarted`` once
  the call may run, ``ToolFinished`` as soon as it ended (when somebody listens), and
  between them the call's progress reports (``ostinato.tools.report_progress``);
* ``tool-retry`` (:attr:`~ostinato.units.UnitOrder.TOOL_RETRY`): retries of a
  read-only or idempotent call's retryable failures (``ostinato.tools._effects``);
* ``tool-timeout`` (:attr:`~ostinato.units.UnitOrder.TOOL_TIMEOUT`): the tool's
  deadline, around the tool itself.

Each reads what it needs from the :class:`~ostinato.units.ToolInvocation` (its
``semaphore``, ``events``, ``retry``, ``timeout``) and passes the call on untouched when that is
``None``: their fast path is one attribute test, and the manager leaves them out of the
step of a call that needs none of them (``UnitWrapper.acts_on``). A durable engine's
recorder sits between the events and the timeout, so a replayed call still tells its
events and a recorded timeout is replayed as one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ostinato._aio import loop_time
from ostinato.errors import ToolError, ToolTimeoutError
from ostinato.tools._progress import close_progress, open_progress
from ostinato.units._stack import UnitOrder, UnitStack, UnitWrapper
from ostinato.units._unit import Unit, UnitKind

if TYPE_CHECKING:
    from ostinato.tools._tool_events import ToolEvents
    from ostinato.units._tool_unit import ToolInvocation

__all__ = [
    "CORE_TOOL_STACK",
    "TOOL_CONCURRENCY",
    "TOOL_EVENTS",
    "TOOL_TIMEOUT",
    "core_unit_wrappers",
]

_Next = Callable[[Unit[Any]], Awaitable[Any]]


async def _capped(unit: ToolInvocation, next: _Next) -> str | ToolError:
    semaphore = unit.semaphore
    if semaphore is None:
        outcome: str | ToolError = await next(unit)
        return outcome
    async with semaphore:
        outcome = await next(unit)
        return outcome


async def _told(unit: ToolInvocation, next: _Next) -> str | ToolError:
    events: ToolEvents | None = unit.events
    if events is None:
        outcome: str | ToolError = await next(unit)
        return outcome
    await events.started(unit)
    began = loop_time()
    reporter = events.progress(unit)  # the call's progress reports, while it runs
    token = open_progress(reporter)
    try:
        outcome = await next(unit)
    except BaseException:
        reporter.abandon()
        raise
    finally:
        close_progress(token)
    await reporter.close()
    await events.finished(unit, outcome, loop_time() - began)
    return outcome


async def _timed(unit: ToolInvocation, next: _Next) -> str | ToolError:
    timeout = unit.timeout
    if timeout is None:
        outcome: str | ToolError = await next(unit)
        return outcome
    import asyncio  # loaded by then: the tool loop runs on it

    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            outcome = await next(unit)
    except TimeoutError:
        # Past the deadline the call was stopped: its timeout. Before it, a TimeoutError
        # the tool raised is its failure like any other (the unit reported it already).
        if not deadline.expired():
            raise
        return _timed_out(unit, timeout)
    # Past the deadline, whatever the tool failed with as it was stopped is the timeout.
    if isinstance(outcome, ToolError) and deadline.expired():
        return _timed_out(unit, timeout)
    return outcome


def _timed_out(unit: ToolInvocation, timeout: float) -> ToolTimeoutError:
    name = unit.call.name
    return ToolTimeoutError(
        f"tool '{name}' timed out after {float(timeout)} s", tool_name=name, timeout=timeout
    )


_TOOLS: Final = frozenset({UnitKind.TOOL_CALL})

#: Waits for the batch's concurrency cap.
TOOL_CONCURRENCY: Final = UnitWrapper(
    "tool-concurrency", UnitOrder.TOOL_CONCURRENCY, _TOOLS, _capped, acts_on="semaphore"
)
#: Tells the tool events.
TOOL_EVENTS: Final = UnitWrapper(
    "tool-events", UnitOrder.TOOL_EVENTS, _TOOLS, _told, acts_on="events"
)
#: Applies the tool's timeout.
TOOL_TIMEOUT: Final = UnitWrapper(
    "tool-timeout", UnitOrder.TOOL_TIMEOUT, _TOOLS, _timed, acts_on="timeout"
)


def core_unit_wrappers() -> tuple[UnitWrapper, ...]:
    """Core's wrappers, part of every client's stack."""
    from ostinato.tools._effects import TOOL_RETRY

    return (TOOL_CONCURRENCY, TOOL_EVENTS, TOOL_RETRY, TOOL_TIMEOUT)


#: The stack of core's wrappers alone: what a tool calling manager runs its calls through
#: when no stack is current (called outside the tool loop).
CORE_TOOL_STACK: Final = UnitStack(core_unit_wrappers())
