"""``UsageLimits``, the value: what one turn may spend.

It imports nothing of ostinato, so that the settings can build it from
``OSTINATO_TOOLS__*``; the tool loop checks it (:mod:`ostinato.advisors`, where the name is
public).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["UsageLimits"]


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
