"""A turn's loop events, read back from its workflow history.

The workflow ships its events in two places of its history (see
:mod:`ostinato_temporal._turn`): the input of each unit's activity (the events told
since the previous one: an activity is scheduled once, however often a crash makes it
run), and each memo change (before it waits for decisions, and before it ends, however
it ends). Reading the history in order gives every event once, in the order the turn
told them, across any number of worker crashes; a reader waits for new history events
(a long poll) until the workflow closed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ostinato_temporal._connection import EVENTS_MEMO

if TYPE_CHECKING:
    from temporalio.client import Client

    from ostinato.events import LoopEvent

__all__ = ["history_events"]


async def history_events(client: Client, turn_id: str) -> AsyncIterator[LoopEvent]:
    """The loop events of the turn ``turn_id``, each once, until its workflow closed.

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
    async for event in handle.fetch_history_events(wait_new_event=True):
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
