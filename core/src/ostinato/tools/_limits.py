"""Tool call limits per turn: how often one tool, and all tools together, may be called.

A *turn* starts at the last user message of the prompt (as in Spring AI). Counting is
recomputed from the prompt's messages at every batch, so the tool calling manager stays
stateless: each :class:`~ostinato.messages.ToolResponse` since that user message counts
one call of the tool it names (error and breach responses included).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ostinato._frozen import EMPTY, freeze
from ostinato.errors import ConfigurationError
from ostinato.messages import Message, ToolResponseMessage, UserMessage

__all__ = ["LimitBehavior", "LimitBreach", "ToolCallLimits", "count_prior_tool_calls"]


class LimitBehavior(enum.StrEnum):
    """What happens when a call breaches a limit."""

    #: Stop the batch and raise :class:`~ostinato.errors.ToolCallLimitExceeded` (the tool
    #: calling advisor turns it into the turn's final answer).
    THROW = "throw"
    #: Answer the call with the breach text instead of running it, and carry on.
    RETURN_ERROR_RESPONSE = "return_error_response"

    @classmethod
    def _missing_(cls, value: object) -> LimitBehavior | None:
        if isinstance(value, str):
            wanted = value.strip().lower().replace("-", "_")
            for member in cls:
                if member.value == wanted:
                    return member
        return None


@dataclass(frozen=True, slots=True)
class LimitBreach:
    """A call that went over a limit.

    Attributes:
        tool_name: the tool whose own limit was breached, or ``None`` for the total limit.
        limit: the limit that was breached.
        message: the text the model (or the caller) reads about it.
    """

    tool_name: str | None
    limit: int
    message: str


def _check_limit(what: str, value: object) -> int | None:
    if value is None or (type(value) is int and value == -1):
        return None
    if type(value) is not int or value <= 0:
        raise ConfigurationError(
            f"{what} must be a positive number of calls, or None (or -1) for unlimited; "
            f"got {value!r}"
        )
    return value


@dataclass(frozen=True, slots=True)
class ToolCallLimits:
    """How many tool calls one turn may make. ``None`` (or ``-1``) means unlimited.

    Attributes:
        max_calls_per_tool: the default limit for each tool (40).
        per_tool: limits for named tools, overriding the default (``None``: unlimited).
        excluded_tools: tools without a per-tool limit; their calls still count toward
            the total.
        max_total_tool_calls: the limit for all tools together (150).
        on_limit_exceeded: :attr:`LimitBehavior.THROW` (default) or
            :attr:`LimitBehavior.RETURN_ERROR_RESPONSE`.

    Raises:
        ConfigurationError: (a ``ValueError``) a limit is not positive, or a tool is both
            limited in ``per_tool`` and listed in ``excluded_tools``.
    """

    DEFAULT_MAX_CALLS_PER_TOOL: ClassVar[int] = 40
    DEFAULT_MAX_TOTAL_TOOL_CALLS: ClassVar[int] = 150

    max_calls_per_tool: int | None = DEFAULT_MAX_CALLS_PER_TOOL
    per_tool: Mapping[str, int | None] = field(default=EMPTY)
    excluded_tools: frozenset[str] = frozenset()
    max_total_tool_calls: int | None = DEFAULT_MAX_TOTAL_TOOL_CALLS
    on_limit_exceeded: LimitBehavior = LimitBehavior.THROW

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(
            self, "max_calls_per_tool", _check_limit("max_calls_per_tool", self.max_calls_per_tool)
        )
        set_(
            self,
            "max_total_tool_calls",
            _check_limit("max_total_tool_calls", self.max_total_tool_calls),
        )
        per_tool = {
            name: _check_limit(f"per_tool[{name!r}]", limit)
            for name, limit in (self.per_tool or {}).items()
        }
        set_(self, "per_tool", freeze(per_tool))
        excluded: Any = self.excluded_tools
        if isinstance(excluded, str):
            raise ConfigurationError(
                f"excluded_tools must be a collection of tool names, got the string {excluded!r};"
                f" write excluded_tools={{{excluded!r}}}"
            )
        set_(self, "excluded_tools", frozenset(excluded or ()))
        both = sorted(set(per_tool) & self.excluded_tools)
        if both:
            raise ConfigurationError(
                f"tool(s) {', '.join(map(repr, both))} are both limited in per_tool and listed in "
                "excluded_tools; keep each tool in only one of them"
            )
        try:
            set_(self, "on_limit_exceeded", LimitBehavior(self.on_limit_exceeded))
        except ValueError:
            raise ConfigurationError(
                f"on_limit_exceeded must be one of {[b.value for b in LimitBehavior]}, "
                f"got {self.on_limit_exceeded!r}"
            ) from None

    @classmethod
    def unlimited(cls, on_limit_exceeded: LimitBehavior = LimitBehavior.THROW) -> ToolCallLimits:
        """No per-tool and no total limit."""
        return cls(None, max_total_tool_calls=None, on_limit_exceeded=on_limit_exceeded)

    def with_tool_limit(self, tool_name: str, limit: int | None) -> ToolCallLimits:
        """A copy limiting ``tool_name`` to ``limit`` calls (and no longer excluding it)."""
        return replace(
            self,
            per_tool={**self.per_tool, tool_name: limit},
            excluded_tools=self.excluded_tools - {tool_name},
        )

    def excluding(self, *tool_names: str) -> ToolCallLimits:
        """A copy without per-tool limits for ``tool_names`` (they still count in the total)."""
        return replace(
            self,
            per_tool={k: v for k, v in self.per_tool.items() if k not in tool_names},
            excluded_tools=self.excluded_tools | frozenset(tool_names),
        )

    def limit_for(self, tool_name: str) -> int | None:
        """The per-tool limit that applies to ``tool_name`` (``None``: unlimited)."""
        if tool_name in self.excluded_tools:
            return None
        if tool_name in self.per_tool:
            return self.per_tool[tool_name]
        return self.max_calls_per_tool

    def check(self, tool_name: str, tool_calls: int, total_calls: int) -> LimitBreach | None:
        """The breach, if a call of ``tool_name`` goes over a limit.

        ``tool_calls`` and ``total_calls`` include the call being checked. The per-tool
        limit is checked first.
        """
        limit = self.limit_for(tool_name)
        if limit is not None and tool_calls > limit:
            return LimitBreach(
                tool_name,
                limit,
                f"Tool call limit ({limit}) exceeded for tool '{tool_name}'. "
                "No further calls to this tool are allowed in this turn.",
            )
        total = self.max_total_tool_calls
        if total is not None and total_calls > total:
            return LimitBreach(
                None,
                total,
                f"Total tool call limit ({total}) exceeded for this turn. "
                "No further tool calls are allowed.",
            )
        return None


def count_prior_tool_calls(messages: Sequence[Message] | Iterable[Message]) -> Counter[str]:
    """Calls per tool name in the current turn: the tool responses from the last user
    message (inclusive) to the end, or in all messages when there is no user message."""
    history = list(messages)
    start = 0
    for i in range(len(history) - 1, -1, -1):
        if isinstance(history[i], UserMessage):
            start = i
            break
    counts: Counter[str] = Counter()
    for message in history[start:]:
        if isinstance(message, ToolResponseMessage):
            counts.update(r.name for r in message.responses)
    return counts
