"""The Temporal workflow of a durable turn.

One workflow, ``ostinato.turn``, takes a :class:`~ostinato.durable.TurnRequest` (and the
unit options it was submitted with) and returns the answer (a ``ChatResponse``) as JSON.
The turn's chain (advisors, the tool loop) runs here, in Temporal's deterministic
sandbox, on the worker's client; each unit becomes an activity through the ``temporal``
unit wrapper, so a replay after a crash re-runs the chain and reads every completed
unit's result from the history.

A turn stopped for approvals publishes its pending calls in its memo
(``ostinato.pending``) and waits for the signal ``ostinato.decide``: a signal is kept by
the service, so a decision sent while no worker runs reaches the turn when one does.
Its loop events go out in activity inputs and memo changes (see
:mod:`ostinato_temporal._turn`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from ostinato.durable import TurnRequest, durable_turn
from ostinato.errors import ApprovalError
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_temporal import _worker_state
from ostinato_temporal._connection import DECIDE_SIGNAL, EVENTS_MEMO, PENDING_MEMO, WORKFLOW_NAME
from ostinato_temporal._turn import TemporalTurnLog, TurnJob, running_turn, take_events
from ostinato_temporal._unit_wrapper import UnitFailure

__all__ = ["TurnWorkflow"]


@workflow.defn(name=WORKFLOW_NAME)
class TurnWorkflow:
    """The turn (see the module's docstring)."""

    def __init__(self) -> None:
        self._waiting: int | None = None  # the round of decisions it waits for
        self._decisions: dict[str, Any] | None = None

    @workflow.signal(name=DECIDE_SIGNAL)
    def decide(self, message: dict[str, Any]) -> None:
        """Decisions for the calls it waits for (``{"round", "decisions"}``); a message
        for another round (sent twice, or late) is ignored."""
        if self._waiting is not None and message.get("round") == self._waiting:
            self._decisions = dict(message["decisions"])

    async def _wait_for_decisions(
        self, pending: PendingToolCalls, seconds: float
    ) -> Mapping[str, ApprovalDecision]:
        self._waiting, self._decisions = pending.rounds, None
        workflow.upsert_memo({PENDING_MEMO: pending.to_json(), EVENTS_MEMO: take_events()})
        try:
            await workflow.wait_condition(
                lambda: self._decisions is not None, timeout=timedelta(seconds=seconds)
            )
        except TimeoutError:
            first = pending.calls[0]
            raise ApprovalError(
                f"no decision arrived within {seconds} s for the calls "
                f"{', '.join(c.id for c in pending.calls)}\n"
                "fix: decide sooner (ostinato approve ID), or raise "
                "OSTINATO_TEMPORAL_APPROVAL_TIMEOUT_SECONDS",
                tool_name=first.name,
                call_id=first.id,
            ) from None
        decided: dict[str, Any] = self._decisions or {}
        self._waiting, self._decisions = None, None
        workflow.upsert_memo({PENDING_MEMO: "", EVENTS_MEMO: []})
        return {call_id: ApprovalDecision.from_dict(d) for call_id, d in decided.items()}

    @workflow.run
    async def run(self, turn: dict[str, Any]) -> str:
        """Run the turn (its units are activities) and return its answer's JSON."""
        request = TurnRequest.from_dict(turn["request"])
        options = turn["options"]
        job = TurnJob(workflow.info().workflow_id, request.tools, options)
        timeout = float(options["approval_timeout_seconds"])
        job.wait_for_decisions = lambda pending: self._wait_for_decisions(pending, timeout)
        try:
            with running_turn(job), durable_turn(job.turn_id):
                runner = _worker_state.turn_runner()
                answer = await runner.run(
                    request,
                    lambda pending: self._wait_for_decisions(pending, timeout),
                    log=TemporalTurnLog(job),
                )
        except asyncio.CancelledError:
            workflow.upsert_memo({EVENTS_MEMO: job.events})  # its last events
            raise
        except workflow.NondeterminismError:
            raise  # the workflow task fails and is retried: a worker's bug, not the turn's
        except Exception as error:
            workflow.upsert_memo({EVENTS_MEMO: job.events})
            text = (
                str(error) if isinstance(error, UnitFailure) else f"{type(error).__name__}: {error}"
            )
            # Recorded as the turn's error, by name and message (never retried).
            raise ApplicationError(text, type=type(error).__name__, non_retryable=True) from None
        workflow.upsert_memo({EVENTS_MEMO: job.events})
        return json.dumps(answer.to_dict(), ensure_ascii=False)
