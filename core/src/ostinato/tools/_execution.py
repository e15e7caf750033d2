"""Running the executable calls of one batch: concurrently, in groups, with timeouts.

The batch is cut into groups at each ``sequential`` call (which forms a group of its
own); groups run one after another in call order and the calls inside a group run
together as tasks of one ``asyncio.TaskGroup``, at most ``max_concurrency`` at a time.
So a sequential call never overlaps another call, and every call keeps its place
relative to the sequential calls around it.

A call's outcome is its text or the ``ToolError`` describing its failure; deciding what
the model reads is left to the caller (the manager's exception processor). Only a
cancellation of the turn, ``KeyboardInterrupt`` and ``SystemExit`` escape: an
``asyncio.CancelledError``, ``GeneratorExit`` or ``StopIteration`` the tool raised itself
is its failure like any other (see ``_tool_failure``).

The tool calling manager imports this module on first use, so that ``import ostinato``
does not pay for ``asyncio``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from ostinato._tool_contract import ToolCallback, ToolContext
from ostinato.durable._units import UnitKind, run_unit, unit_interceptor
from ostinato.errors import (
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from ostinato.instrumentation import tool_scopes
from ostinato.messages import ToolCall
from ostinato.tools._function import describe_exception
from ostinato.tools._tool_failure import current_task, tool_failure

__all__ = ["ToolJob", "ToolJobWatcher", "groups_of", "new_semaphore", "run_group"]

# Failures a callback reports on purpose; anything else it raises is wrapped first.
_REPORTED = (ToolNotFoundError, ToolArgumentsError, ToolExecutionError, ToolTimeoutError)


@dataclass(frozen=True, slots=True)
class ToolJob:
    """A call that will run: its place in the batch, and what runs it."""

    index: int
    call: ToolCall
    callback: ToolCallback
    arguments: str
    return_direct: bool
    sequential: bool
    timeout: float | None


@dataclass(frozen=True, slots=True)
class ToolJobWatcher:
    """Told when each call of a group starts running and how it ended (tool events):
    ``started(job)`` just before the tool runs (after waiting for the concurrency cap),
    ``finished(job, outcome, seconds)`` as soon as it ended."""

    started: Callable[[ToolJob], Awaitable[None]]
    finished: Callable[[ToolJob, str | ToolError, float], Awaitable[None]]


def groups_of(jobs: Sequence[ToolJob]) -> list[list[ToolJob]]:
    """Cut the batch at sequential calls: each sequential call is a group of its own."""
    groups: list[list[ToolJob]] = []
    current: list[ToolJob] = []
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
    group: Sequence[ToolJob],
    context: ToolContext,
    semaphore: asyncio.Semaphore | None,
    watcher: ToolJobWatcher | None = None,
) -> list[str | ToolError]:
    """Run the calls of one group together; outcomes in call order."""
    # A TaskGroup: cancelling the caller cancels every running call, and no task
    # outlives this function. _ending raises only BaseExceptions (cancellation...) and
    # _TurnEnding.
    failure: BaseException | None = None
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(_ending(job, context, semaphore, watcher)) for job in group]
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
    job: ToolJob,
    context: ToolContext,
    semaphore: asyncio.Semaphore | None,
    watcher: ToolJobWatcher | None,
) -> str | ToolError:
    try:
        return await _invoke(job, context, semaphore, watcher)
    except (KeyboardInterrupt, SystemExit) as error:
        raise _TurnEnding(error) from None


def new_semaphore(max_concurrency: int | None) -> asyncio.Semaphore | None:
    """The semaphore capping one batch's concurrent calls (``None``: no cap)."""
    return asyncio.Semaphore(max_concurrency) if max_concurrency else None


async def _invoke(
    job: ToolJob,
    context: ToolContext,
    semaphore: asyncio.Semaphore | None,
    watcher: ToolJobWatcher | None,
) -> str | ToolError:
    async with semaphore if semaphore is not None else contextlib.nullcontext():
        if watcher is None:
            return await _outcome(job, context)
        await watcher.started(job)
        began = time.perf_counter()
        outcome = await _outcome(job, context)
        await watcher.finished(job, outcome, time.perf_counter() - began)
        return outcome


async def _outcome(job: ToolJob, context: ToolContext) -> str | ToolError:
    interceptor = unit_interceptor()
    if interceptor is None:
        return await _scoped(job, context)
    # A durable turn: the call is a unit, recorded or replayed (then the tool and its
    # scopes do not run again).
    from ostinato.durable._codecs import decode_tool_outcome, encode_tool_outcome

    return await run_unit(
        interceptor,
        UnitKind.TOOL_CALL,
        job.call.name,
        lambda: _scoped(job, context),
        encode_tool_outcome,
        decode_tool_outcome,
        lambda: {"call": job.call.to_dict()},
    )


async def _scoped(job: ToolJob, context: ToolContext) -> str | ToolError:
    scopes = tool_scopes()
    if not scopes:
        return await _run(job, context)
    with contextlib.ExitStack() as stack:
        reports = [stack.enter_context(scope(job.call, job.callback)) for scope in scopes]
        outcome = await _run(job, context)
        for report in reports:
            report(outcome)
        return outcome


async def _run(job: ToolJob, context: ToolContext) -> str | ToolError:
    name = job.call.name
    task = current_task()
    try:
        if job.timeout is None:
            result: object = await job.callback.call(job.arguments, context)
        else:
            deadline = asyncio.timeout(job.timeout)
            try:
                async with deadline:
                    result = await job.callback.call(job.arguments, context)
            except BaseException as error:
                # Past the deadline, whatever the tool raised as it was stopped is the
                # timeout; before it, its own TimeoutError is a failure like any other.
                if not deadline.expired() or tool_failure(error, task) is None:
                    raise
                return ToolTimeoutError(
                    f"tool '{name}' timed out after {float(job.timeout)} s",
                    tool_name=name,
                    timeout=job.timeout,
                )
    except _REPORTED as error:
        if error.tool_name is None:
            error.tool_name = name
        return error
    except BaseException as e:
        failure = tool_failure(e, task)
        if failure is None:
            raise  # the turn is cancelled, or KeyboardInterrupt/SystemExit
        wrapped = ToolExecutionError(describe_exception(failure), tool_name=name)
        wrapped.__cause__ = failure
        wrapped.__suppress_context__ = True
        return wrapped
    if result is None:
        return ""
    return result if isinstance(result, str) else str(result)
