"""Token usage and the algebra that sums it across the rounds of a tool loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Usage", "cumulative_usage"]


@dataclass(frozen=True, slots=True, init=False)
class Usage:
    """Tokens used by one model response (or summed over several).

    ``total_tokens`` defaults to prompt + completion, but an explicit total given by the
    provider is kept as is. Cache counts and ``reasoning_tokens`` (completion tokens a
    reasoning model spent thinking, part of ``completion_tokens``) are ``None`` when the
    provider did not report them. ``native_usage`` is the provider's raw usage object; it
    is dropped when usages are summed. A usage is *empty* when its total is 0.
    """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cache_read_input_tokens: int | None
    cache_write_input_tokens: int | None
    native_usage: Any = field(compare=False)
    reasoning_tokens: int | None = None

    def __init__(
        self,
        prompt_tokens: int | None = 0,
        completion_tokens: int | None = 0,
        total_tokens: int | None = None,
        cache_read_input_tokens: int | None = None,
        cache_write_input_tokens: int | None = None,
        native_usage: Any = None,
        reasoning_tokens: int | None = None,
    ) -> None:
        prompt = prompt_tokens or 0
        completion = completion_tokens or 0
        object.__setattr__(self, "prompt_tokens", prompt)
        object.__setattr__(self, "completion_tokens", completion)
        object.__setattr__(
            self, "total_tokens", prompt + completion if total_tokens is None else total_tokens
        )
        object.__setattr__(self, "cache_read_input_tokens", cache_read_input_tokens)
        object.__setattr__(self, "cache_write_input_tokens", cache_write_input_tokens)
        object.__setattr__(self, "native_usage", native_usage)
        object.__setattr__(self, "reasoning_tokens", reasoning_tokens)

    @property
    def is_empty(self) -> bool:
        """True when nothing was counted (total is 0)."""
        return self.total_tokens == 0

    def __add__(self, other: Usage) -> Usage:
        """Field-wise sum; cache and reasoning counts stay ``None`` only when both are;
        native usage dropped."""
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            _add_optional(self.cache_read_input_tokens, other.cache_read_input_tokens),
            _add_optional(self.cache_write_input_tokens, other.cache_write_input_tokens),
            reasoning_tokens=_add_optional(self.reasoning_tokens, other.reasoning_tokens),
        )

    def __repr__(self) -> str:
        parts = [f"{self.prompt_tokens}/{self.completion_tokens}/{self.total_tokens}"]
        if self.cache_read_input_tokens is not None:
            parts.append(f"cache_read={self.cache_read_input_tokens}")
        if self.cache_write_input_tokens is not None:
            parts.append(f"cache_write={self.cache_write_input_tokens}")
        if self.reasoning_tokens is not None:
            parts.append(f"reasoning={self.reasoning_tokens}")
        return f"Usage({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (without the native usage object; ``reasoning_tokens`` only when
        reported)."""
        data: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_write_input_tokens": self.cache_write_input_tokens,
        }
        if self.reasoning_tokens is not None:
            data["reasoning_tokens"] = self.reasoning_tokens
        return data


def _add_optional(a: int | None, b: int | None) -> int | None:
    if a is None and b is None:
        return None
    return (a or 0) + (b or 0)


EMPTY_USAGE = Usage()


def cumulative_usage(current: Usage | None, previous: Usage | None) -> Usage:
    """``current`` plus ``previous`` by Spring AI's rules.

    No previous: ``current`` itself. Empty current: ``previous`` itself. Otherwise the
    field-wise sum (native usage dropped).
    """
    if previous is None:
        return current if current is not None else EMPTY_USAGE
    if current is None or current.is_empty:
        return previous
    return current + previous
