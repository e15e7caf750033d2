"""Approval decisions as A2A messages carry them, and the waiting calls as they are shown.

A message answering an ``input-required`` task decides its waiting calls one of two ways:
a data part ``{"decisions": {"<call id>": {"decision": "approve"|"deny"|"edit", ...}}}``
(the shape ``ostinato serve``'s ``/api/approvals`` takes: ``reason`` for a denial,
``arguments`` for an edit), or a text that is one word deciding every call alike
(``approve``/``yes`` or ``deny``/``no``). Anything else decides nothing: the task stays
waiting, and says why.
"""

from __future__ import annotations

import json
from typing import Any, Final

from a2a.helpers import get_data_parts
from a2a.types import Message

from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_a2a._json import narrowed
from ostinato_serve.extending import ApiError, parse_decisions

__all__ = ["DecisionError", "describe_calls", "read_decisions"]

_APPROVE: Final = frozenset({"approve", "approved", "yes", "y", "ok"})
_DENY: Final = frozenset({"deny", "denied", "no", "n", "reject"})


class DecisionError(ValueError):
    """A message that does not decide the waiting calls (the text says why)."""


def describe_calls(pending: PendingToolCalls) -> list[dict[str, Any]]:
    """The waiting calls as a caller sees them: ``id``, ``name`` and ``arguments`` (the
    parsed JSON, or the text when it is not JSON)."""
    described = []
    for call in pending.calls:
        try:
            arguments: Any = json.loads(call.arguments or "{}")
        except ValueError:
            arguments = call.arguments
        described.append({"id": call.id, "name": call.name, "arguments": arguments})
    return described


def read_decisions(
    message: Message | None, pending: PendingToolCalls
) -> dict[str, ApprovalDecision]:
    """One decision per waiting call of ``pending``, from ``message``.

    Raises:
        DecisionError: the message decides nothing, or not every waiting call, or holds
            a malformed decision.
    """
    if message is None:
        raise DecisionError("the message is empty;")
    for data in map(narrowed, get_data_parts(message.parts)):
        if isinstance(data, dict) and "decisions" in data:
            try:
                return parse_decisions(data, pending.awaiting)
            except ApiError as problem:
                raise DecisionError(f"{problem.message};") from None
    words = " ".join(p.text for p in message.parts if p.HasField("text")).strip().lower()
    word = words.rstrip(".!")
    if word in _APPROVE:
        return {call_id: ApprovalDecision.approve() for call_id in pending.awaiting}
    if word in _DENY:
        return {call_id: ApprovalDecision.deny() for call_id in pending.awaiting}
    shown = words if len(words) <= 60 else words[:57] + "..."
    raise DecisionError(f"the reply {shown!r} decides nothing;")
