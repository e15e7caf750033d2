"""``UsageLimits``: what one turn may spend, and how the tool loop checks it.

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
from typing import Any

from ostinato.errors import UsageLimitExceeded
from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, FinishReason, Generation

__all__ = ["UsageBreach", "UsageLimits", "budget_answer", "usage_breach"]


def _limit(value: Any, name: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"UsageLimits.{name} must be a positive int or None, got {value!r}")


@dataclass(frozen=True, slots=True)
class UsageLimits:
    """The most one turn may spend (``None``: no limit).

    Attributes:
        model_requests: model rounds per turn. The loop stops before a round that would
            go past it (the calls of the last round allowed do not run).
        total_tokens: tokens of every round together (the usage the provider reports);
            once reached, the tools the model asked for do not run.
        tool_calls: tool calls run per turn; a round whose calls would go past it does
            not run them.
        raise_error: ``True`` raises :class:`~ostinato.errors.UsageLimitExceeded`
            instead of ending the turn with an answer saying so (reason ``budget``;
            ``LoopEnded.limit`` names the limit). With the tool advisor's
            ``final_answer_on_limit`` that answer is the model's, from one last round
            without tools (one request beyond the limit).

    Set per request with ``.usage_limits(...)`` or for every request of a client with
    ``ChatClient.builder(...).default_usage_limits(...)``; the request's win.

    Raises:
        ValueError: a limit is not a positive int (the message names it).
    """

    model_requests: int | None = None
    total_tokens: int | None = None
    tool_calls: int | None = None
    raise_error: bool = False

    def __post_init__(self) -> None:
        _limit(self.model_requests, "model_requests")
        _limit(self.total_tokens, "total_tokens")
        _limit(self.tool_calls, "tool_calls")

    @property
    def is_empty(self) -> bool:
        """True when no limit is set."""
        return (
            self.model_requests is None and self.total_tokens is None and (self.tool_calls is None)
        )


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
