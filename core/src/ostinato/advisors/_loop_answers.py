"""The answers the tool loop builds itself when a turn stops without the model's answer:
waiting for approvals, cancelled, or at the iteration cap. This module only builds values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation

if TYPE_CHECKING:
    from ostinato.runtime._cancel_scope import CancelScope
    from ostinato.tools import PendingToolCalls

__all__ = [
    "APPROVAL_REQUIRED_FINISH_REASON",
    "CANCELLED_FINISH_REASON",
    "approval_required_generation",
    "cancelled_generation",
    "iteration_cap",
]

#: The finish reason of the answer of a turn that stopped for approvals.
APPROVAL_REQUIRED_FINISH_REASON: Final = "approvalRequired"

#: The finish reason of the answer of a cancelled turn.
CANCELLED_FINISH_REASON: Final = "cancelled"


def approval_required_generation(pending: PendingToolCalls) -> Generation:
    """The answer of a turn that stopped for approvals: says which calls wait."""
    calls = ", ".join(f"{c.name}({c.arguments or '{}'})" for c in pending.calls)
    text = f"Waiting for approval of tool call(s): {calls}."
    metadata = ChatGenerationMetadata(finish_reason=APPROVAL_REQUIRED_FINISH_REASON)
    return Generation(AssistantMessage(text), metadata)


def cancelled_generation(scope: CancelScope | None) -> Generation:
    """The answer of a cancelled turn (with the scope's reason, if it gave one)."""
    reason = scope.reason if scope is not None else None
    text = "The turn was cancelled" + (f": {reason}." if reason else ".")
    metadata = ChatGenerationMetadata(finish_reason=CANCELLED_FINISH_REASON)
    return Generation(AssistantMessage(text), metadata)


def iteration_cap(response: ChatResponse, max_iterations: int, finish_reason: str) -> ChatResponse:
    """``response`` with one generation saying the loop stopped at ``max_iterations``."""
    text = (
        f"Stopped after {max_iterations} model rounds: the tool loop reached "
        f"max_iterations={max_iterations} while the model still asked for tools. "
        "Raise max_iterations (OSTINATO_TOOLS__MAX_ITERATIONS) if the task needs more rounds."
    )
    metadata = ChatGenerationMetadata(finish_reason=finish_reason)
    return response.copy(generations=[Generation(AssistantMessage(text), metadata)])
