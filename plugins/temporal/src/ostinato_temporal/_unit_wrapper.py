"""The ``temporal`` unit wrapper: inside a turn workflow, each unit is an activity.

Registered through ``register_unit_wrappers`` for every kind of unit, so it is in the
stack of every auto-configured client where the plugin is installed. It acts only in
Temporal workflow code running a turn (:mod:`ostinato_temporal._workflow`), on a unit of
the turn itself: the unit's kind, name, sequence and description go to the activity
``ostinato.unit``, which rebuilds the unit on its worker's client and runs it there
(:mod:`ostinato_temporal._activities`); the workflow gets the unit's JSON result back,
decoded (a replay reads it from the turn's history). A model round, a tool call and a
memory write are activities; a memory read and a retrieval are *local* activities (see
:func:`_execute`). A side-effecting or destructive tool call is guarded: a retried
attempt of its activity does not run it again but reports it in doubt, and the workflow
resolves it by the tool's rule (:mod:`ostinato_temporal._guard`). Everywhere else, an
activity included, it passes the unit on.

It sits just inside :attr:`~ostinato.units.UnitOrder.DURABLE` (``DURABLE + 1``): a stack
holds one wrapper *at* ``DURABLE``, and the DBOS plugin's is there when both are
installed; each acts only in its own engine's turns, so the two never record one unit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from ostinato.units import Unit, UnitKind, UnitOrder, UnitWrapper

if TYPE_CHECKING:
    from ostinato.model import ChatResponse
    from ostinato.units import ModelStream

__all__ = ["ORDER", "WRAPPER_NAME", "UnitFailure", "temporal_unit_wrapper"]

#: The wrapper's name in a client's unit stack.
WRAPPER_NAME: Final = "temporal"
#: Its place: just inside the durable engine's (see the module's docstring).
ORDER: Final = UnitOrder.DURABLE + 1
#: The kinds run as local activities: they change nothing (see :func:`_execute`).
_LOCAL: Final = (UnitKind.MEMORY_READ, UnitKind.RETRIEVAL)


class UnitFailure(RuntimeError):
    """A unit failed in its activity: the message is the original's class name and text."""


async def _around(unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
    from ostinato_temporal._job import current_job

    job = current_job()
    if job is None or not unit.durable:
        return await next(unit)
    from ostinato.units import ToolInvocation, in_doubt_rule

    if isinstance(unit, ToolInvocation):  # a tool call: guarded when its effect says so
        rule = in_doubt_rule(unit)
        if rule is not None:
            from ostinato_temporal._guard import guarded_unit

            return await guarded_unit(unit, rule, job, _execute)
    return unit.decode(await _execute(unit, job))


async def _execute(unit: Unit[Any], job: Any, guard: str | None = None) -> Any:
    """The unit as an activity; its JSON result. ``guard``: the mode of a guarded tool
    call's activity (``"call"`` or ``"reconcile"``, see :mod:`ostinato_temporal._guard`).

    A memory read runs as a local activity, in this worker, its result recorded in the
    turn's history with the workflow task: it changes nothing, so running it again after
    a crash is harmless, and it saves two round trips through the task queue at the start
    of every turn. A retrieval (a vector store search) is read-only too, and runs so
    for the same reasons; the worker rebuilds it on the store of its own client's
    retrieval advisor (``arebuild_unit``), so workers need the same retrieval settings.
    A memory write is a normal activity like a model round or a tool call: its result
    is recorded the moment it ends, so a worker killed after the write never repeats it
    (a local activity's result is recorded only when the workflow task that ran it
    completes, which widens the window in which a crash repeats the write).
    """
    from temporalio import workflow
    from temporalio.common import RetryPolicy
    from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

    from ostinato_temporal._connection import UNIT_ACTIVITY
    from ostinato_temporal._job import take_events

    options = job.options
    timeout = timedelta(seconds=float(options["unit_timeout_seconds"]))
    retry = RetryPolicy(initial_interval=timedelta(milliseconds=200), backoff_coefficient=1.0)
    payload: dict[str, Any] = {
        "turn": job.turn_id,
        "kind": unit.kind.value,
        "name": unit.name,
        "sequence": unit.sequence,
        "description": unit.describe(),
        "tools": list(job.tools),
    }
    if guard is not None:
        payload["guard"] = guard
    try:
        if unit.kind in _LOCAL:
            data = await workflow.execute_local_activity(
                UNIT_ACTIVITY, payload, start_to_close_timeout=timeout, retry_policy=retry
            )
        else:
            payload["events"] = take_events()  # shipped in the history, once
            data = await workflow.execute_activity(
                UNIT_ACTIVITY,
                payload,
                start_to_close_timeout=timeout,
                heartbeat_timeout=timedelta(seconds=float(options["heartbeat_seconds"])),
                retry_policy=retry,
                summary=f"{guard if guard == 'reconcile' else unit.kind.value} {unit.name}",
            )
    except ActivityError as error:
        cause = error.cause
        if isinstance(cause, ApplicationError):
            raise UnitFailure(cause.message) from None
        if isinstance(cause, CancelledError):
            # The turn was cancelled while the unit ran: the SDK may tell it as the
            # activity's failure rather than as the workflow task's cancellation; the
            # chain ends it as a cancelled turn in process ends, either way.
            raise asyncio.CancelledError(cause.message) from None
        raise
    return data


def _around_stream(
    unit: ModelStream, next: Callable[[ModelStream], AsyncIterator[ChatResponse]]
) -> AsyncIterator[ChatResponse]:
    from ostinato_temporal._job import current_job

    if current_job() is None or not unit.durable:
        return next(unit)
    from ostinato.units import recorded_stream

    return recorded_stream(unit, next, _around)


def temporal_unit_wrapper() -> UnitWrapper:
    """The wrapper (see the module's docstring)."""
    wrapper = UnitWrapper.of_all(WRAPPER_NAME, ORDER, _around)
    return UnitWrapper(wrapper.name, wrapper.order, wrapper.kinds, wrapper.around, _around_stream)
