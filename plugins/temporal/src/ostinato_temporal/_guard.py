"""Crash safety of calls with effects in a Temporal turn: never a silent second run.

A side-effecting or destructive tool call (``ostinato.units.in_doubt_rule`` is not
``None``) runs as the activity ``ostinato.unit`` like any unit, marked *guarded*. Its
in-doubt mark is the one Temporal records anyway, durably, before the tool can start:
the service writes that an attempt of the activity was handed to a worker before the
worker receives it, and counts attempts. The activity is retried by the service only
when its worker went away (heartbeat timeout) or it overran its timeout — a unit's own
failure is never retried — so a guarded activity whose attempt is not the first knows
that an earlier attempt was handed out and did not report back: whether the tool took
effect is unknown. That attempt does not run the tool; it returns ``{"in_doubt": true}``
(:func:`ostinato_temporal._activities.run_unit`). The workflow then resolves the call
by the tool's rule (``ostinato.units.resolve_in_doubt``), which emits the ``in_doubt``
event:

* ``reconcile``: the tool's hook runs in an activity of its own (``ostinato.unit`` in
  its reconcile mode, on the rebuilt call, so the hook sees the call's idempotency key);
  its answer is recorded in the turn's history like any activity result;
* ``approve``: the workflow waits for a decision as for an approval (memo
  ``ostinato.pending`` and the signal ``ostinato.decide``): approved, the call runs
  again as a new activity (guarded again); denied, the model reads it was not run;
* ``fail``: the turn fails with ``ToolInDoubtError``.

A read-only, idempotent or undeclared call is not guarded: a retried attempt simply runs
it again (at least once, with the same idempotency key). A separate activity writing a
mark before the call would cost a round trip through the task queue per call and tell
nothing the attempt count does not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from ostinato.durable import ask_in_doubt
from ostinato.errors import ToolError
from ostinato.tools import InDoubtRule
from ostinato.units import ToolInvocation, resolve_in_doubt
from ostinato_temporal._turn import TurnJob

__all__ = ["IN_DOUBT", "guarded_unit"]

#: What the guarded activity returns, instead of running the tool, on a retried attempt.
IN_DOUBT: Final = {"in_doubt": True}

#: Runs the unit's activity in a mode (``"call"``, ``"reconcile"``): its JSON result.
Execute = Callable[[ToolInvocation, TurnJob, str], Awaitable[Any]]


async def guarded_unit(
    unit: ToolInvocation, rule: InDoubtRule, job: TurnJob, execute: Execute
) -> str | ToolError:
    """Run the call ``unit`` guarded (see the module's docstring); its outcome."""
    attempt = 0
    steps = _Steps(unit, job, execute)
    while True:
        data = await execute(unit, job, "call")
        if data != IN_DOUBT:
            outcome: str | ToolError = unit.decode(data["outcome"])
            return outcome
        resolved = await resolve_in_doubt(unit, rule, steps, attempt)
        if resolved is not None:
            return resolved
        attempt += 1  # the call runs again: a new activity, guarded again


class _Steps:
    """The recorded steps the in-doubt rule takes in a Temporal workflow
    (``ostinato.units.RecordedSteps``)."""

    def __init__(self, unit: ToolInvocation, job: TurnJob, execute: Execute) -> None:
        self._unit = unit
        self._job = job
        self._execute = execute
        self._asked = 0

    async def step(self, name: str, body: Callable[[], Awaitable[Any]]) -> tuple[Any, bool]:
        # The one step resolve_in_doubt takes is the reconcile hook's: it runs in an
        # activity (``body`` is its in-process form), its answer kept in the history.
        assert name.startswith("reconcile "), name
        return await self._execute(self._unit, self._job, "reconcile"), True

    async def ask(self, unit: ToolInvocation, key: str | None) -> bool | str:
        wait = self._job.wait_for_decisions
        if wait is None:
            return "no one can decide in this turn"
        self._asked += 1  # each wait of this call its own pending value
        # An edit changes the call itself: the activity rebuilds it from its description.
        return await ask_in_doubt(unit, key, self._asked, wait)
