"""How the tool loop checks a turn's ``UsageLimits`` (the value is re-exported from here).

A turn's spending is counted by the tool loop from what it already keeps: model rounds,
the summed usage of every round (the same on the call and the stream path), and the tool
calls it ran. Before a tool round's calls run, the loop asks :func:`usage_breach`; when a
limit is reached the turn ends with reason ``budget``, after one last round without
tools with ``final_answer_on_limit`` (or raises
:class:`~ostinato.errors.UsageLimitExceeded` when the limits say so). This module must
not know the loop beyond those numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ostinato._usage_limits import UsageLimits
from ostinato.errors import UsageLimitExceeded
from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, FinishReason, Generation

__all__ = ["UsageBreach", "UsageLimits", "budget_answer", "usage_breach"]


@dataclass(frozen=True, slots=True)
class UsageBreach:
    """A limit the turn reached: its name, value, and what was used."""

    name: str
    limit: int
    used: int

    @property
    def message(self) -> str:
        """What happened and what to change."""
        return (
            f"Stopped: the turn reached its usage limit {self.name}={self.limit} "
            f"(used {self.used}) while the model still asked for tools. Raise the limit "
            "(UsageLimits) if the task needs more."
        )

    def error(self) -> UsageLimitExceeded:
        """The error raised for this breach when the limits say ``raise_error``."""
        return UsageLimitExceeded(
            self.message, limit_name=self.name, limit=self.limit, used=self.used
        )


def usage_breach(
    limits: UsageLimits | None,
    *,
    rounds: int,
    total_tokens: int,
    tool_calls: int,
    batch: int,
) -> UsageBreach | None:
    """The limit a tool round of ``batch`` calls would break, after ``rounds`` rounds,
    ``total_tokens`` tokens and ``tool_calls`` calls run (``None``: go on)."""
    if limits is None:
        return None
    if limits.model_requests is not None and rounds >= limits.model_requests:
        return UsageBreach("model_requests", limits.model_requests, rounds)
    if limits.total_tokens is not None and total_tokens >= limits.total_tokens:
        return UsageBreach("total_tokens", limits.total_tokens, total_tokens)
    if limits.tool_calls is not None and tool_calls + batch > limits.tool_calls:
        return UsageBreach("tool_calls", limits.tool_calls, tool_calls)
    return None


def budget_answer(response: ChatResponse, breach: UsageBreach) -> ChatResponse:
    """``response`` with one generation saying the turn stopped at ``breach``."""
    metadata = ChatGenerationMetadata(finish_reason=FinishReason.USAGE_LIMIT_EXCEEDED)
    return response.copy(generations=[Generation(AssistantMessage(breach.message), metadata)])
