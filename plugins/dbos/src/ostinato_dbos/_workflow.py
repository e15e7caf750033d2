"""The DBOS workflow of a durable turn, and how the ``dbos`` unit wrapper makes each unit
a DBOS step.

One workflow, ``ostinato.turn``, takes a :class:`~ostinato.durable.TurnRequest` as JSON
and returns the answer (a ``ChatResponse``) as JSON. Inside it, each unit core runs
becomes a step named ``<kind> <name>`` whose output is the unit's JSON; DBOS replays
completed steps from its system database after a crash. A turn stopped for approvals
publishes its pending calls (event ``ostinato.pending``) and waits for the decisions
(message topic ``ostinato.decisions``) with ``DBOS.recv``, which is durable too. Its
loop events go to its log, live (see :mod:`ostinato_dbos._turn_log`).
Imported only in worker processes (it imports DBOS).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from dbos import DBOS

from ostinato.durable import TurnRequest, TurnRunner, Unit, ask_in_doubt, durable_turn
from ostinato.errors import ApprovalError, ToolError
from ostinato.tools import ApprovalDecision, InDoubtRule, PendingToolCalls
from ostinato.units import ToolInvocation, keeping_unit_notes, run_guarded
from ostinato_dbos._settings import DbosSettings
from ostinato_dbos._steering import DbosSteering, close_steering, submit_follow_up
from ostinato_dbos._turn_log import DbosTurnLog, EventWriter

__all__ = [
    "DECISIONS_TOPIC",
    "NOTE_EVENT",
    "PENDING_EVENT",
    "WORKFLOW_NAME",
    "DbosNotes",
    "TurnFailure",
    "configure_worker",
    "dbos_unit",
    "guarded_unit",
    "run_turn_workflow",
]

#: The registered name of the turn workflow.
WORKFLOW_NAME: Final = "ostinato.turn"
#: The event a waiting turn publishes its pending calls under ("" once decided).
PENDING_EVENT: Final = "ostinato.pending"
#: The message topic decisions are sent on.
DECISIONS_TOPIC: Final = "ostinato.decisions"
#: What the event keeping a unit's note is named after (``"ostinato.note <key>"``).
NOTE_EVENT: Final = "ostinato.note"


class TurnFailure(RuntimeError):
    """A turn's error as it is recorded: the original's class name and message."""


def _no_lease() -> None:
    pass


class _Worker:
    runner: TurnRunner | None = None
    writer: EventWriter | None = None
    approval_timeout: float = 7 * 24 * 3600.0
    check_lease: Callable[[], None] = _no_lease
    settings: DbosSettings | None = None


def configure_worker(
    runner: TurnRunner,
    approval_timeout: float,
    check_lease: Callable[[], None] = _no_lease,
    writer: EventWriter | None = None,
    settings: DbosSettings | None = None,
) -> None:
    """Give this process's turn workflows their runner (the worker's auto-configured
    client), how long they wait for decisions, the check that runs before each unit
    (it returns while this worker still holds its turns; it ends the process otherwise),
    the writer of their events, and the settings a turn's follow-up is submitted with
    (default: read from the environment)."""
    _Worker.runner = runner
    _Worker.writer = writer
    _Worker.approval_timeout = approval_timeout
    _Worker.check_lease = check_lease
    _Worker.settings = settings


def _submit_follow_up(request: TurnRequest) -> str:
    """Submit a turn's follow-up (in a step: fenced like a unit)."""
    from ostinato_dbos._engine import DbosEngine

    _Worker.check_lease()
    with DbosEngine(_Worker.settings) as engine:
        return submit_follow_up(engine, request)


async def dbos_unit(unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
    """``next(unit)`` (the rest of the stack, then the unit) as a DBOS step whose output
    is the unit's JSON, encoded with its codec (a recorded step returns its output,
    decoded, without running)."""
    ran = False
    result: Any = None

    async def step() -> str:
        nonlocal ran, result
        await asyncio.to_thread(_Worker.check_lease)  # fenced: not another unit here
        result = await next(unit)
        ran = True
        return json.dumps(unit.encode(result), ensure_ascii=False)

    text = await DBOS.run_step_async({"name": f"{unit.kind.value} {unit.name}"}, step)
    return result if ran else unit.decode(json.loads(text))


class _Steps:
    """DBOS steps for the in-doubt guard of one tool call (``RecordedSteps``)."""

    def __init__(self) -> None:
        self._asked = 0

    async def step(self, name: str, body: Callable[[], Awaitable[Any]]) -> tuple[Any, bool]:
        ran = False
        result: Any = None

        async def run() -> str:
            nonlocal ran, result
            await asyncio.to_thread(_Worker.check_lease)  # fenced: not another unit here
            result = await body()
            ran = True
            return json.dumps(result, ensure_ascii=False)

        text = await DBOS.run_step_async({"name": name}, run)
        return (result, True) if ran else (json.loads(text), False)

    async def ask(self, unit: ToolInvocation, key: str | None) -> bool | str:
        self._asked += 1  # each wait of this call its own pending value
        return await ask_in_doubt(unit, key, self._asked, _wait_for_decisions)


async def guarded_unit(
    unit: ToolInvocation,
    next: Callable[[ToolInvocation], Awaitable[str | ToolError]],
    rule: InDoubtRule,
) -> str | ToolError:
    """A side-effecting or destructive call as guarded DBOS steps: marked in doubt before
    it runs, resolved by ``rule`` when a crash left it so (``ostinato.units.run_guarded``)."""
    return await run_guarded(unit, next, _Steps(), rule)


async def _wait_for_decisions(pending: PendingToolCalls) -> Mapping[str, ApprovalDecision]:
    await DBOS.set_event_async(PENDING_EVENT, pending.to_json())
    message = await DBOS.recv_async(DECISIONS_TOPIC, timeout_seconds=_Worker.approval_timeout)
    if message is None:
        first = pending.calls[0]
        raise ApprovalError(
            f"no decision arrived within {_Worker.approval_timeout} s for the calls "
            f"{', '.join(c.id for c in pending.calls)}\n"
            "fix: decide sooner (ostinato approve ID), or raise "
            "OSTINATO_DBOS_APPROVAL_TIMEOUT_SECONDS",
            tool_name=first.name,
            call_id=first.id,
        )
    await DBOS.set_event_async(PENDING_EVENT, "")
    data = json.loads(message)
    return {call_id: ApprovalDecision.from_dict(d) for call_id, d in data.items()}


async def _wait_for_turn(turn_id: str) -> None:
    """Return once the turn ``turn_id`` has ended, however it ended (a turn submitted
    ``after`` it: an enqueued message). The wait is the workflow's own: a replay after a
    crash waits again, or not at all once that turn has ended."""
    handle: Any = await DBOS.retrieve_workflow_async(turn_id, existing_workflow=False)
    with contextlib.suppress(Exception):  # failed or cancelled: it has ended all the same
        await handle.get_result(polling_interval_sec=0.1)


class DbosNotes:
    """A durable turn's unit notes (``ostinato.units.UnitNotes``): events of its workflow
    (``NOTE_EVENT``), written from inside the unit's step and read back, unrecorded, by
    a later run of it."""

    __slots__ = ("_workflow_id",)

    def __init__(self, workflow_id: str) -> None:
        self._workflow_id = workflow_id

    async def write(self, key: str, value: Any) -> None:
        """Keep ``value`` under ``key``."""
        await DBOS.set_event_async(f"{NOTE_EVENT} {key}", json.dumps(value))

    async def read(self, key: str) -> Any:
        """The value kept under ``key``, or ``None``."""
        # Read inside the unit's step, where DBOS records nothing (a plain read).
        text = await DBOS.get_event_async(self._workflow_id, f"{NOTE_EVENT} {key}", 0)
        return None if text is None else json.loads(text)


@DBOS.workflow(name=WORKFLOW_NAME)
async def run_turn_workflow(request_json: str, after: str | None = None) -> str:
    """Run one durable turn (its units are steps) and return its answer's JSON; ``after``:
    the id of a turn to wait for first (the turn runs once that one has ended)."""
    runner = _Worker.runner
    if runner is None:
        raise RuntimeError(
            "a durable turn ran in a process that is not an ostinato worker\n"
            "fix: run turns with `ostinato worker` (or ostinato_dbos.Worker)"
        )
    workflow_id = DBOS.workflow_id
    assert workflow_id is not None
    request = TurnRequest.from_json(request_json)
    if after is not None:
        await _wait_for_turn(after)
    writer = _Worker.writer
    log = None
    if writer is not None:  # what earlier runs of the turn stored (read, not recorded)
        stored = await asyncio.to_thread(writer.store.load, workflow_id)
        log = DbosTurnLog(workflow_id, stored, writer)
    steering = DbosSteering()
    answer = None
    failure: TurnFailure | None = None
    try:
        with durable_turn(workflow_id), keeping_unit_notes(DbosNotes(workflow_id)):
            try:
                answer = await runner.run(request, _wait_for_decisions, steering, log=log)
            finally:
                # The turn's last events are written before its workflow ends (readers
                # stop at the end of a finished turn's rows). Not on cancellation's
                # account only: a failed turn's events are kept too.
                if log is not None:
                    await asyncio.to_thread(log.end)
    except Exception as error:
        # Recorded as the turn's error: by name and message, as every process can read
        # it back (not every exception class can be rebuilt from DBOS's pickle).
        failure = TurnFailure(f"{type(error).__name__}: {error}")
    # Not on cancellation (a BaseException): a cancelled turn's steered messages go with it.
    text = answer.text if answer is not None else None
    await close_steering(steering, request, workflow_id, text, _submit_follow_up)
    if failure is not None:
        raise failure from None
    assert answer is not None
    return json.dumps(answer.to_dict(), ensure_ascii=False)
