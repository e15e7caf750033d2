"""Summing usage over the rounds of one turn (the tool loop's and validation's accumulator)."""

from __future__ import annotations

from ostinato.model._response import ChatResponse
from ostinato.model._usage import Usage, cumulative_usage

__all__ = ["UsageAccumulator", "accumulate_response_usage"]


def accumulate_response_usage(
    current: ChatResponse | None, accumulated: ChatResponse | None
) -> ChatResponse | None:
    """``current`` carrying the sum of its usage and ``accumulated``'s.

    No current: ``accumulated``. An accumulated response with empty usage counts as absent.
    When the sum is empty, ``None`` (nothing recorded yet).
    """
    if current is None:
        return accumulated
    previous = None
    if accumulated is not None and not accumulated.usage.is_empty:
        previous = accumulated.usage
    total = cumulative_usage(current.usage, previous)
    if total.is_empty:
        return None
    return current if total is current.usage else current.with_usage(total)


class UsageAccumulator:
    """Adds up the usage of each round; stamps the total on the turn's final response."""

    __slots__ = ("_accumulated",)

    def __init__(self) -> None:
        self._accumulated: ChatResponse | None = None

    def add(self, response: ChatResponse | None) -> None:
        """Count ``response``'s usage."""
        self._accumulated = accumulate_response_usage(response, self._accumulated)

    @property
    def accumulated(self) -> ChatResponse | None:
        """The last counted response carrying the running total, or ``None``."""
        return self._accumulated

    @property
    def total(self) -> Usage | None:
        """The running total, or ``None`` when nothing was counted."""
        if self._accumulated is None or self._accumulated.usage.is_empty:
            return None
        return self._accumulated.usage

    def apply(self, response: ChatResponse | None) -> ChatResponse | None:
        """``response`` with its usage replaced by the total (unchanged when already equal)."""
        total = self.total
        if response is None or total is None or response.usage == total:
            return response
        return response.with_usage(total)
