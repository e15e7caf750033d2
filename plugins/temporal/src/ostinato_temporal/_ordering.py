"""The activities that order turns: waiting for a turn to end, and submitting a turn's
follow-up.

``ostinato.wait_for_turn``: a turn submitted ``after`` another waits for it in this
activity, a long poll of the service for that turn's result, heartbeating. It returns
once that turn has ended, however it ended (or once the service no longer knows it). The
wait is one activity in the history whatever it lasts (no timer or poll adds to it): a
worker that dies in it stops heartbeating, and the service runs it again on another
worker; a turn cancelled while it waits gets the cancellation at the next heartbeat.

``ostinato.follow_up``: the messages steered to a turn after its last round boundary run
in its *follow-up* (:mod:`ostinato.durable._follow_up`). The activity submits it under
the turn's next id, exclusively and ``after`` the turn, with the turn and the batch of
messages in its memo (``ostinato.follows``). Run again (a retry after a lost worker), it
finds the id taken by its own earlier attempt and is done. An id another turn holds (the
conversation's next message, submitted meanwhile) gets the messages as steered input
instead, with the batch as the signal's id so that a retry is read once; an id whose turn
has ended passes to the next id of the series (up to :data:`SERIES_TRIES` ids; then the
activity fails, and the turn logs that its late messages did not run, keeping its
answer). Returns the id the messages went to.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ostinato_temporal._connection import (
    FOLLOW_UP_ACTIVITY,
    FOLLOWS_MEMO,
    STEER_SIGNAL,
    WAIT_ACTIVITY,
)

__all__ = ["SERIES_TRIES", "submit_follow_up", "wait_for_turn"]

#: How many ids of a turn's series its follow-up tries (each held by a turn that ended).
SERIES_TRIES = 20


async def _heartbeat(period: float) -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(period)


@activity.defn(name=WAIT_ACTIVITY)
async def wait_for_turn(payload: dict[str, Any]) -> None:
    """Return once the turn ``payload["turn"]`` has ended (see the module's docstring)."""
    from temporalio.service import RPCError, RPCStatusCode

    timeout = activity.info().heartbeat_timeout
    period = timeout.total_seconds() / 4 if timeout else 1.0
    beating = asyncio.create_task(_heartbeat(period))
    try:
        handle = activity.client().get_workflow_handle(str(payload["turn"]))
        try:
            await handle.result()
        except RPCError as error:
            if error.status is not RPCStatusCode.NOT_FOUND:
                raise  # the service: the activity runs again
        except asyncio.CancelledError:
            raise
        except Exception:
            pass
    finally:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating


@activity.defn(name=FOLLOW_UP_ACTIVITY)
async def submit_follow_up(payload: dict[str, Any]) -> str:
    """Submit the follow-up ``payload["request"]`` of the turn ``payload["turn"]``, or
    steer its texts onward (see the module's docstring); the id they went to."""
    from temporalio.exceptions import WorkflowAlreadyStartedError
    from temporalio.service import RPCError, RPCStatusCode

    from ostinato.durable import TurnRequest, follow_up_id
    from ostinato_temporal._starting import start_turn

    turn, key = str(payload["turn"]), str(payload["key"])
    request = TurnRequest.from_dict(payload["request"])
    client = activity.client()
    candidate = follow_up_id(turn)
    for _ in range(SERIES_TRIES):
        try:
            await start_turn(
                client,
                request,
                candidate,
                task_queue=activity.info().task_queue,
                options=payload["options"],
                after=turn,
                exclusive=True,
                follows_key=key,
            )
            return candidate
        except WorkflowAlreadyStartedError:
            pass
        handle = client.get_workflow_handle(candidate)
        description = await handle.describe()
        follows = (await description.memo()).get(FOLLOWS_MEMO)
        if follows == {"turn": turn, "key": key}:
            return candidate  # submitted by an earlier attempt of this activity
        if description.status is not None and description.status.name == "RUNNING":
            try:
                await handle.signal(STEER_SIGNAL, {"texts": payload["texts"], "id": key})
                return candidate
            except RPCError as error:
                if error.status is not RPCStatusCode.NOT_FOUND:
                    raise  # else it ended meanwhile: the next id
        candidate = follow_up_id(candidate)
    raise ApplicationError(
        f"the follow-up of the durable turn {turn!r} found {SERIES_TRIES} ids of its series "
        "taken by turns that have ended; its late steered messages were not run",
        type="DurableTurnError",
        non_retryable=True,
    )
