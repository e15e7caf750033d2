"""What a memory advisor stores for a turn that stopped for approvals and was resumed.

A turn that stops for approvals is not over: nothing of it is stored (its answer's
context holds the pending value). The resumed request carries the pending turn
(``RESUMED_TURN``) with the whole conversation so far, so memory neither applies its
history again nor loses the stopped round: outside the tool loop the turn's user message
is stored with the final answer; inside it, the stopped round (its user message in a
first round, the assistant message with edited arguments, the tool responses) is stored
whole once the resumed tool responses arrive. This module must not store anything
itself; the advisor does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ostinato.context_keys import PENDING_TOOL_CALLS, RESUMED_TURN
from ostinato.messages import Message, SystemMessage, ToolResponseMessage, UserMessage
from ostinato.tools import ResumedTurn

__all__ = ["is_pending", "resumed_of", "stopped_round", "turn_input"]


def resumed_of(context: Mapping[str, Any]) -> ResumedTurn | None:
    """The resumed turn a request's context carries, if any."""
    value = context.get(RESUMED_TURN)
    return value if isinstance(value, ResumedTurn) else None


def is_pending(context: Mapping[str, Any]) -> bool:
    """Whether a response (or chunk) context says the turn stopped for approvals."""
    return PENDING_TOOL_CALLS in context


def turn_input(resumed: ResumedTurn) -> tuple[Message, ...]:
    """The message a resumed turn stores with its answer outside the loop: its last user
    message (none when the pending conversation has none)."""
    user = next((m for m in reversed(resumed.pending.messages) if isinstance(m, UserMessage)), None)
    return () if user is None else (user,)


def stopped_round(resumed: ResumedTurn, request: Sequence[Message]) -> tuple[Message, ...] | None:
    """Inside the loop: the stopped round, whole, when ``request`` brings the resumed
    batch's tool responses; else ``None``."""
    last = next((m for m in reversed(request) if not isinstance(m, SystemMessage)), None)
    asked = {c.id for c in resumed.pending.assistant.tool_calls}
    if not isinstance(last, ToolResponseMessage) or {r.id for r in last.responses} != asked:
        return None
    first = turn_input(resumed) if resumed.pending.rounds == 1 else ()
    return (*first, resumed.assistant, last)
