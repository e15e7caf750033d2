"""What every engine does with approval decisions: read one as given to
:meth:`~ostinato.durable.TurnHandle.decide`, and ask for one about a call left in doubt.

:func:`decision_of` accepts the forms a handle's ``decide`` takes (an
:class:`~ostinato.tools.ApprovalDecision`, ``True``/``False``, or a decision's
``to_dict()`` read back from JSON). :func:`ask_in_doubt` is the ``ask`` of an engine's
in-doubt steps (:func:`ostinato.units.resolve_in_doubt` with the ``approve`` rule): it
stops the turn on a pending value holding the one call, with a note the user reads, and
applies the decision to the call (an edit changes its arguments, and so its
description, which an engine running calls elsewhere rebuilds it from).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ostinato.errors import ResumeError
from ostinato.messages import AssistantMessage
from ostinato.tools import ApprovalDecision, ApprovalKind, PendingToolCalls
from ostinato.units import ToolInvocation

__all__ = ["ask_in_doubt", "decision_of"]


def decision_of(
    call_id: Any, decision: ApprovalDecision | bool | Mapping[str, Any]
) -> ApprovalDecision:
    """``decision`` as an :class:`~ostinato.tools.ApprovalDecision` (``True``/``False``:
    approve/deny; a mapping: a decision's ``to_dict()``).

    Raises:
        ResumeError: ``decision`` is none of those (the message names ``call_id``).
    """
    if isinstance(decision, bool):
        return ApprovalDecision.approve() if decision else ApprovalDecision.deny()
    if isinstance(decision, ApprovalDecision):
        return decision
    if isinstance(decision, Mapping):
        return ApprovalDecision.from_dict(dict(decision))
    raise ResumeError(
        f"the decision for call {call_id!r} must be an ApprovalDecision, True/False or a "
        f"decision's to_dict(), got {type(decision).__name__}"
    )


async def ask_in_doubt(
    unit: ToolInvocation,
    key: str | None,
    number: int,
    wait: Callable[[PendingToolCalls], Awaitable[Mapping[str, ApprovalDecision]]],
) -> bool | str:
    """Ask, through ``wait`` (the turn's wait for decisions), whether the call ``unit``
    left in doubt runs again: ``True`` when approved (an edit applied to ``unit``), else
    the reason it was denied (``"denied"`` when none was given).

    Args:
        unit: the call whose effect is unknown.
        key: its idempotency key (shown to the user).
        number: which wait of this call this is (from 1): each its own pending value.
        wait: the engine's wait for decisions on a pending value.
    """
    call = unit.call
    note = (
        f"In doubt: the call to '{call.name}' (idempotency key {key}) was in flight when "
        "its worker stopped; whether it took effect is unknown. Approve to run it again, "
        f"deny to tell the model it was not run again. (decision {number})"
    )
    pending = PendingToolCalls((), AssistantMessage(note, (call,)), (), (call.id,), (call.name,))
    decision = (await wait(pending)).get(call.id)
    if decision is None or decision.kind is ApprovalKind.DENY:
        return "denied" if decision is None else (decision.reason or "denied")
    if decision.kind is ApprovalKind.EDIT and decision.arguments is not None:
        unit.arguments = decision.arguments
        unit.call = dataclasses.replace(call, arguments=decision.arguments)
    return True
