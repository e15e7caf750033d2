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

A turn submitted ``after`` another first waits for that one to end, in the activity
``ostinato.wait_for_turn`` (see :mod:`ostinato_temporal._ordering`). Messages steered
to the turn (the signal ``ostinato.steer``) join it at its round boundaries
(:class:`~ostinato_temporal._steering.TemporalSteering`). Those that came after its last
boundary are read once its loop has run, however it ended but cancelled, and go to its
follow-up (the activity ``ostinato.follow_up``); a signal that arrives while the workflow
completes makes the service refuse the completion, and the workflow runs again from its
history with the signal delivered before the code that follows its last await: the
messages are read again until none is left, so none is dropped.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from ostinato.durable import TurnRequest, durable_turn, follow_up_request
from ostinato.errors import ApprovalError
from ostinato.model import ChatResponse
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_temporal import _worker_state
from ostinato_temporal._connection import (
    DECIDE_SIGNAL,
    EVENTS_MEMO,
    FOLLOW_UP_ACTIVITY,
    PENDING_MEMO,
    STEER_SIGNAL,
    WAIT_ACTIVITY,
    WORKFLOW_NAME,
    waits_queue,
)
from ostinato_temporal._steering import TemporalSteering
from ostinato_temporal._turn import TemporalTurnLog, TurnJob, running_turn, take_events
from ostinato_temporal._unit_wrapper import UnitFailure

__all__ = ["TurnWorkflow"]


@workflow.defn(name=WORKFLOW_NAME)
class TurnWorkflow:
    """The turn (see the module's docstring)."""

    def __init__(self) -> None:
        self._waiting: int | None = None  # the round of decisions it waits for
        self._decisions: dict[str, Any] | None = None
        self._steering = TemporalSteering()

    @workflow.signal(name=STEER_SIGNAL)
    def steer(self, message: dict[str, Any]) -> None:
        """User messages for the turn's next round boundary (``{"texts", "id"}``)."""
        self._steering.signalled(message)

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
        if turn.get("after"):
            await _wait_for_turn(str(turn["after"]), options)
        job = TurnJob(workflow.info().workflow_id, request.tools, options)
        timeout = float(options["approval_timeout_seconds"])
        job.wait_for_decisions = lambda pending: self._wait_for_decisions(pending, timeout)
        answer: ChatResponse | None = None
        failure: Exception | None = None
        try:
            with running_turn(job), durable_turn(job.turn_id):
                runner = _worker_state.turn_runner()
                answer = await runner.run(
                    request,
                    lambda pending: self._wait_for_decisions(pending, timeout),
                    self._steering,
                    log=TemporalTurnLog(job),
                )
        except asyncio.CancelledError:
            workflow.upsert_memo({EVENTS_MEMO: job.events})  # its last events
            raise
        except workflow.NondeterminismError:
            raise  # the workflow task fails and is retried: a worker's bug, not the turn's
        except Exception as error:
            failure = error
        workflow.upsert_memo({EVENTS_MEMO: list(job.events)})  # its last events, once
        job.events.clear()
        await self._follow_up(request, job.turn_id, options, answer)
        if failure is not None:
            text = (
                str(failure)
                if isinstance(failure, UnitFailure)
                else f"{type(failure).__name__}: {failure}"
            )
            # Recorded as the turn's error, by name and message (never retried).
            raise ApplicationError(text, type=type(failure).__name__, non_retryable=True)
        assert answer is not None
        return json.dumps(answer.to_dict(), ensure_ascii=False)

    async def _follow_up(
        self,
        request: TurnRequest,
        turn_id: str,
        options: Mapping[str, Any],
        answer: ChatResponse | None,
    ) -> None:
        """Send the messages steered after the last round boundary to the follow-up, a
        batch at a time until none is left (see the module's docstring)."""
        batch = 0
        while texts := [message.text for message in self._steering.drain()]:
            batch += 1
            follow_up = follow_up_request(
                request,
                texts,
                turn_id=turn_id,
                joined=self._steering.joined,
                answer=None if answer is None else answer.text,
            )
            payload = {
                "turn": turn_id,
                "key": f"{turn_id}/late/{batch}",
                "request": follow_up.to_dict(),
                "texts": texts,
                "options": dict(options),
            }
            from temporalio.common import RetryPolicy
            from temporalio.exceptions import ActivityError

            try:
                await workflow.execute_activity(
                    FOLLOW_UP_ACTIVITY,
                    payload,
                    start_to_close_timeout=timedelta(
                        seconds=float(options["unit_timeout_seconds"])
                    ),
                    retry_policy=RetryPolicy(maximum_attempts=_FOLLOW_UP_ATTEMPTS),
                )
            except ActivityError as error:  # the turn keeps its answer: logged, not raised
                workflow.logger.error(
                    "the follow-up of the durable turn %s could not be submitted (%s); its "
                    "%d late steered message(s) did not run",
                    turn_id,
                    error.cause or error,
                    len(texts),
                )


#: How many times the follow-up's activity is tried before its messages are given up.
_FOLLOW_UP_ATTEMPTS = 4


async def _wait_for_turn(turn_id: str, options: Mapping[str, Any]) -> None:
    """Wait until the turn ``turn_id`` has ended (the wait activity, on the workers'
    queue of waits: a waiting turn takes none of the slots its predecessor's units need).
    Heartbeats tell a lost worker; a wait that outlasts its day runs again."""
    from temporalio.common import RetryPolicy

    beat = float(options["heartbeat_seconds"])
    await workflow.execute_activity(
        WAIT_ACTIVITY,
        {"turn": turn_id},
        task_queue=waits_queue(workflow.info().task_queue),
        start_to_close_timeout=timedelta(days=1),
        heartbeat_timeout=timedelta(seconds=beat),
        retry_policy=RetryPolicy(maximum_interval=timedelta(seconds=max(beat, 1.0))),
    )
