"""What a request spec does with approvals and ``resume(...)``: turning what the user
gave into checked values before anything runs.

A pending value comes from outside (a file, a database, another process): it is read as
data and checked against the request (its tools, the decisions) here, so a bad one fails
with one :class:`~ostinato.errors.ResumeError` before any model call or tool run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.context_keys import CONVERSATION_ID
from ostinato.errors import ResumeError
from ostinato.messages import Message
from ostinato.prompt import ChatOptions, ToolCallingChatOptions
from ostinato.tools import ApprovalDecision, ApprovalSettings, PendingToolCalls, ResumedTurn

__all__ = ["approval_settings", "check_resume", "resumed_turn"]


def approval_settings(values: Mapping[str, Any]) -> ApprovalSettings:
    """The request's approval settings from what its setters recorded."""
    return ApprovalSettings(values.get("policy"), values.get("approver"), values.get("timeout"))


def resumed_turn(pending: Any, decisions: Any) -> ResumedTurn:
    """``pending`` (value, dict or JSON text) and ``decisions`` as checked values.

    Raises:
        ResumeError: either is malformed.
    """
    if isinstance(pending, str | bytes):
        pending = PendingToolCalls.from_json(pending)
    elif isinstance(pending, Mapping):
        pending = PendingToolCalls.from_dict(dict(pending))
    elif not isinstance(pending, PendingToolCalls):
        raise ResumeError(
            f"resume() takes a PendingToolCalls, its to_dict() or its JSON text, "
            f"got {type(pending).__name__}"
        )
    if not isinstance(decisions, Mapping):
        raise ResumeError(
            f"decisions must map call ids to decisions, got {type(decisions).__name__}"
        )
    checked: dict[str, ApprovalDecision] = {}
    for call_id, decision in decisions.items():
        if isinstance(decision, bool):
            decision = ApprovalDecision.approve() if decision else ApprovalDecision.deny()
        elif isinstance(decision, Mapping):
            try:
                decision = ApprovalDecision.from_dict(dict(decision))
            except (TypeError, ValueError) as e:
                raise ResumeError(f"the decision for call {call_id!r} is not valid: {e}") from e
        checked[str(call_id)] = decision
    pending.check_resumable(checked, None)  # ids and kinds now; tools once the request is built
    return ResumedTurn(pending, checked)


def check_resume(
    resumed: ResumedTurn, user: str | None, options: ChatOptions, context: dict[str, Any]
) -> tuple[list[Message], ChatOptions]:
    """The messages and options of a resuming request; names the conversation in
    ``context`` when the pending value does and the request does not.

    Raises:
        ResumeError: user text was set, or the request lacks a tool the calls need.
    """
    pending = resumed.pending
    if user is not None:
        raise ResumeError(
            "resume() continues a stopped turn; it takes no new user text (remove .user(...))"
        )
    names = options.tool_names if isinstance(options, ToolCallingChatOptions) else ()
    pending.check_resumable(resumed.decisions, names)
    plain: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in pending.options.items()
    }
    if plain:
        options = options.combine_with(ChatOptions(**plain))
    if pending.conversation_id is not None:
        context.setdefault(CONVERSATION_ID, pending.conversation_id)
    return list(pending.messages), options
