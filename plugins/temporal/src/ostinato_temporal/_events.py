"""A turn's log, read back from its workflow history.

The workflow ships its events in two places of its history (see
:mod:`ostinato_temporal._turn`): the input of each unit's activity (the events told
since the previous one: an activity is scheduled once, however often a crash makes it
run), and each memo change (before it waits for decisions, and before it ends, however
it ends). Reading the history in order gives every event once, at its position, in the
order the turn told them, across any number of worker crashes; a reader waits for new
history events (a long poll: an event is readable as soon as the workflow task that told
it completed) until the workflow closed. The log lives as long as the history: once the
namespace's retention removed a closed turn's history, the turn is unknown.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from ostinato_temporal._connection import EVENTS_MEMO

if TYPE_CHECKING:
    from temporalio.client import Client

    from ostinato.events import LoopEvent

__all__ = ["history_events", "log_end", "read_log"]


async def read_log(
    client: Client,
    turn_id: str,
    after: int,
    seconds: float | None,
    unknown: Callable[[], Exception],
) -> AsyncIterator[LoopEvent]:
    """The events of the turn ``turn_id`` after position ``after``, until it closed.

    Raises:
        TurnLogError: ``after`` is past the end of the log.
        TimeoutError: no event came within ``seconds`` of the previous one.
        Exception: ``unknown()``, when no workflow has this id.
    """
    from temporalio.service import RPCError, RPCStatusCode

    from ostinato.errors import TurnLogError

    try:
        if after and after > (last := await log_end(client, turn_id)):
            raise TurnLogError(
                f"position {after} is past the end of durable turn {turn_id!r}'s log "
                f"(its last event is at {last})\nfix: read after a position the log "
                "gave you (an event's seq), or 0",
                turn_id=turn_id,
                position=after,
                reason="past_end",
            )
        events = history_events(client, turn_id)
        while True:
            try:
                async with asyncio.timeout(seconds):
                    event = await anext(events)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise TimeoutError(
                    f"no event of the durable turn {turn_id!r} within {seconds} s"
                ) from None
            if event.seq > after:
                yield event
    except RPCError as error:
        if error.status is RPCStatusCode.NOT_FOUND:
            raise unknown() from None
        raise


async def log_end(client: Client, turn_id: str) -> int:
    """The position of the last event the history of ``turn_id`` holds now (0: none).

    Raises:
        RPCError: no workflow has this id.
    """
    last = 0
    async for event in history_events(client, turn_id, wait=False):
        last = event.seq
    return last


async def history_events(
    client: Client, turn_id: str, *, wait: bool = True
) -> AsyncIterator[LoopEvent]:
    """The loop events of the turn ``turn_id``, each once, until its workflow closed
    (``wait=False``: until the end of the history as it is now).

    Raises:
        RPCError: no workflow has this id (the caller names the turn).
    """
    from temporalio.api.enums.v1 import EventType

    from ostinato.events import LoopEvent

    scheduled = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    modified = EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED
    closing = {
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
    }
    converter = client.data_converter
    handle = client.get_workflow_handle(turn_id)
    async for event in handle.fetch_history_events(wait_new_event=wait):
        batch: Any = None
        if event.event_type == scheduled:
            payloads = event.activity_task_scheduled_event_attributes.input.payloads
            values = await converter.decode(list(payloads))
            batch = values[0].get("events") if values and isinstance(values[0], dict) else None
        elif event.event_type == modified:
            fields = event.workflow_properties_modified_event_attributes.upserted_memo.fields
            if EVENTS_MEMO in fields:
                (batch,) = await converter.decode([fields[EVENTS_MEMO]])
        for data in batch or ():
            yield LoopEvent.from_dict(data)
        if event.event_type in closing:
            return
