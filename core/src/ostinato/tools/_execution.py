"""Running the executable calls of one batch: concurrently, in groups, through the stack.

The batch is cut into groups at each ``sequential`` call (which forms a group of its
own); groups run one after another in call order and the calls inside a group run
together as tasks of one ``asyncio.TaskGroup``. So a sequential call never overlaps
another call, and every call keeps its place relative to the sequential calls around it.
Each call is a :class:`~ostinato.units.ToolInvocation` run through the unit stack:
core's wrappers there cap the concurrency (``max_concurrency``), tell the tool events
and apply the tool's timeout; plugins' wrappers (a durable engine, tracing) sit between.

A call's outcome is its text or the ``ToolError`` describing its failure; deciding what
the model reads is left to the caller (the manager's exception processor). Only a
cancellation of the turn, ``KeyboardInterrupt`` and ``SystemExit`` escape (see
:mod:`ostinato.units._failure`).

The tool calling manager imports this module on first use, so that ``import ostinato``
does not pay for ``asyncio``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ostinato.errors import ToolError
from ostinato.units._stack import UnitStack
from ostinato.units._tool_unit import ToolInvocation
from ostinato.units._unit import _BOUND, UnitKind

if TYPE_CHECKING:
    from ostinato.tools._eager import EagerStarts

__all__ = ["BOUND_STACK", "EAGER", "ToolInvocation", "groups_of", "new_semaphore", "run_group"]

#: The stack (and turn) the tool loop binds around tool execution (what
#: ``ostinato.units.current_unit_stack()`` reads), for the manager to read in one import.
BOUND_STACK = _BOUND

#: The early starts of the streamed round whose tools run now (set by the tool loop
#: around tool execution; see ``ostinato.tools._eager``).
EAGER: ContextVar[EagerStarts | None] = ContextVar("ostinato_eager_starts", default=None)

_NO_TIMEOUT = frozenset({"timeout"})
_RETRY = frozenset({"retry"})
_NO_CAP_NOR_EVENTS = frozenset({"semaphore", "events", "retry"})
_NO_CAP = frozenset({"semaphore", "retry"})
_NO_EVENTS = frozenset({"events", "retry"})
_NOTHING = _RETRY
# Each of those with the timeout left out too (made once, not per group).
_LEAN = {s: s | _NO_TIMEOUT for s in (_NO_CAP_NOR_EVENTS, _NO_CAP, _NO_EVENTS, _NOTHING)}


def groups_of(jobs: Sequence[ToolInvocation]) -> list[list[ToolInvocation]]:
    """Cut the batch at sequential calls: each sequential call is a group of its own."""
    groups: list[list[ToolInvocation]] = []
    current: list[ToolInvocation] = []
    for job in jobs:
        if job.sequential:
            if current:
                groups.append(current)
            groups.append([job])
            current = []
        else:
            current.append(job)
    if current:
        groups.append(current)
    return groups


async def run_group(
    group: Sequence[ToolInvocation], stack: UnitStack, retry: bool = False
) -> list[str | ToolError]:
    """Run the calls of one group (sharing the batch's ``semaphore`` and ``events``)
    together through ``stack``; outcomes in call order. ``retry``: a call of the batch
    may be retried (else core's retry wrapper is left out)."""
    # A TaskGroup: cancelling the caller cancels every running call, and no task
    # outlives this function. _ending raises only BaseExceptions (cancellation...) and
    # _TurnEnding.
    failure: BaseException | None = None
    if not group:
        return []
    # The wrappers acting on what a call lacks are left out of its step.
    first = group[0]
    if first.semaphore is None:
        skipped = _NO_CAP_NOR_EVENTS if first.events is None else _NO_CAP
    else:
        skipped = _NO_EVENTS if first.events is None else _NOTHING
    if retry:
        skipped = skipped - _RETRY
        lean = stack.step(UnitKind.TOOL_CALL, skipped | _NO_TIMEOUT)
    else:
        lean = stack.step(UnitKind.TOOL_CALL, _LEAN[skipped])
    full = stack.step(UnitKind.TOOL_CALL, skipped)
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [
                tg.create_task(_ending(lean if job.timeout is None else full, job)) for job in group
            ]
    except BaseExceptionGroup as group_error:
        endings = [e for e in group_error.exceptions if isinstance(e, _TurnEnding)]
        if endings:
            failure = endings[0].error  # the first KeyboardInterrupt/SystemExit
        elif len(group_error.exceptions) == 1:
            failure = group_error.exceptions[0]  # one failure: raise it, not a group of one
        else:
            raise
    if failure is not None:
        raise failure
    return [task.result() for task in tasks]


class _TurnEnding(Exception):
    """Carries a tool's ``KeyboardInterrupt`` or ``SystemExit`` out of its task.

    asyncio re-raises those two out of the event loop from the task that raised them,
    ahead of anything awaiting the task: the group's caller would then raise it again
    when the loop is shut down, and the caller's task would end with an exception nobody
    retrieves (logged as "Task exception was never retrieved" when it is collected).
    Carried as an ``Exception``, the group cancels the other calls and its caller raises
    the tool's own exception, once.
    """

    def __init__(self, error: KeyboardInterrupt | SystemExit) -> None:
        super().__init__(repr(error))
        self.error = error


async def _ending(
    step: Callable[[ToolInvocation], Awaitable[Any]], job: ToolInvocation
) -> str | ToolError:
    try:
        outcome: str | ToolError = await step(job)
    except (KeyboardInterrupt, SystemExit) as error:
        raise _TurnEnding(error) from None
    return outcome


def new_semaphore(max_concurrency: int | None) -> asyncio.Semaphore | None:
    """The semaphore capping one batch's concurrent calls (``None``: no cap)."""
    return asyncio.Semaphore(max_concurrency) if max_concurrency else None
