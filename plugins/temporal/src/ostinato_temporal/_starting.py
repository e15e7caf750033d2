"""Starting a turn's workflow: what a submitter and a turn submitting its follow-up share.

The service decides who owns an id. A plain submission uses the existing workflow of
its id (the same id twice is one turn, an ended one included); an *exclusive* one fails
on any workflow that has or had the id, running or ended (conflict policy ``FAIL``,
reuse policy ``REJECT_DUPLICATE``), so of processes submitting one id at once exactly
one creates the turn. A turn submitted ``after`` another carries that one's id in its
input and waits for it inside its workflow (see :mod:`ostinato_temporal._ordering`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ostinato.errors import DurableTurnError
from ostinato_temporal._connection import FOLLOWS_MEMO, PENDING_MEMO, WORKFLOW_NAME

if TYPE_CHECKING:
    from temporalio.client import Client

    from ostinato.durable import TurnRequest

__all__ = ["exists_error", "start_turn"]


def exists_error(turn_id: str) -> DurableTurnError:
    """The error of an exclusive submission whose id is taken (status ``"exists"``)."""
    return DurableTurnError(
        f"a durable turn has the id {turn_id!r} already (running or ended); an exclusive "
        "submission needs a new id — submit under another id, or follow that turn",
        turn_id=turn_id,
        status="exists",
    )


async def start_turn(
    client: Client,
    request: TurnRequest,
    turn_id: str,
    *,
    task_queue: str,
    options: Mapping[str, float],
    after: str | None = None,
    exclusive: bool = False,
    follows_key: str | None = None,
) -> None:
    """Start the workflow of ``request`` as the turn ``turn_id`` (see the module's
    docstring); ``follows_key``: the batch of late messages a follow-up was made for
    (kept in its memo with the turn it follows).

    Raises:
        WorkflowAlreadyStartedError: ``exclusive`` and a workflow has or had the id.
    """
    from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
    from temporalio.exceptions import WorkflowAlreadyStartedError

    turn: dict[str, Any] = {"request": request.to_dict(), "options": dict(options)}
    if after is not None:
        turn["after"] = after
    memo: dict[str, Any] = {PENDING_MEMO: ""}
    if request.follows is not None:
        memo[FOLLOWS_MEMO] = {"turn": request.follows, "key": follows_key}
    conflict = WorkflowIDConflictPolicy.FAIL if exclusive else WorkflowIDConflictPolicy.USE_EXISTING
    try:
        await client.start_workflow(
            WORKFLOW_NAME,
            turn,
            id=turn_id,
            task_queue=task_queue,
            id_conflict_policy=conflict,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            memo=memo,
        )
    except WorkflowAlreadyStartedError:
        if exclusive:
            raise
        # A plain submission of an ended turn's id: that turn, as it ended.
