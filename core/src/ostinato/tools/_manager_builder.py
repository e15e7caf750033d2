"""A fluent builder for :class:`DefaultToolCallingManager`, for people coming from Spring.

Keyword arguments to the manager do the same in one call; the builder adds Spring's
per-method validation and its rules that a per-tool limit un-excludes a tool and an
exclusion drops a per-tool limit.
"""

from __future__ import annotations

from typing import Self

from ostinato.errors import ConfigurationError
from ostinato.tools._exceptions import ToolExecutionExceptionProcessor
from ostinato.tools._limits import LimitBehavior, ToolCallLimits
from ostinato.tools._manager import DefaultToolCallingManager
from ostinato.tools._resolver import ToolCallbackResolver

__all__ = ["DefaultToolCallingManagerBuilder"]


def _positive(what: str, value: int) -> int:
    if type(value) is not int or value <= 0:
        raise ConfigurationError(
            f"{what} must be a positive number of calls, got {value!r}; "
            "use the unlimited_* method for no limit"
        )
    return value


class DefaultToolCallingManagerBuilder:
    """Collects settings, then :meth:`build` makes the manager. Every method returns self."""

    def __init__(self) -> None:
        self._resolver: ToolCallbackResolver | None = None
        self._processor: ToolExecutionExceptionProcessor | None = None
        self._max_calls_per_tool: int | None = ToolCallLimits.DEFAULT_MAX_CALLS_PER_TOOL
        self._per_tool: dict[str, int | None] = {}
        self._excluded: set[str] = set()
        self._max_total: int | None = ToolCallLimits.DEFAULT_MAX_TOTAL_TOOL_CALLS
        self._behavior = LimitBehavior.THROW
        self._fallback = False
        self._max_concurrency: int | None = None

    def tool_callback_resolver(self, resolver: ToolCallbackResolver) -> Self:
        """Where tools not attached to the request are looked up (with fallback enabled)."""
        if resolver is None:
            raise ConfigurationError("tool_callback_resolver must not be None")
        self._resolver = resolver
        return self

    def exception_processor(self, processor: ToolExecutionExceptionProcessor) -> Self:
        """What the model reads for failures, or what is raised."""
        if processor is None:
            raise ConfigurationError("exception_processor must not be None")
        self._processor = processor
        return self

    def limits(self, limits: ToolCallLimits) -> Self:
        """Replace every limit setting at once."""
        self._max_calls_per_tool = limits.max_calls_per_tool
        self._per_tool = dict(limits.per_tool)
        self._excluded = set(limits.excluded_tools)
        self._max_total = limits.max_total_tool_calls
        self._behavior = limits.on_limit_exceeded
        return self

    def max_calls_per_tool(self, limit: int) -> Self:
        """The default per-tool limit (must be positive)."""
        self._max_calls_per_tool = _positive("max_calls_per_tool", limit)
        return self

    def unlimited_calls_per_tool(self) -> Self:
        """No default per-tool limit."""
        self._max_calls_per_tool = None
        return self

    def max_calls_for_tool(self, tool_name: str, limit: int) -> Self:
        """A limit for one tool (must be positive); the tool is no longer excluded."""
        self._per_tool[tool_name] = _positive(f"max_calls_for_tool({tool_name!r})", limit)
        self._excluded.discard(tool_name)
        return self

    def unlimited_calls_for_tool(self, tool_name: str) -> Self:
        """No per-tool limit for one tool (its calls still count toward the total)."""
        self._per_tool[tool_name] = None
        self._excluded.discard(tool_name)
        return self

    def exclude_tool_from_limit(self, tool_name: str) -> Self:
        """No per-tool limit for one tool; drops any limit set for it."""
        self._excluded.add(tool_name)
        self._per_tool.pop(tool_name, None)
        return self

    def max_total_tool_calls(self, limit: int) -> Self:
        """The limit for all tools together in one turn (must be positive)."""
        self._max_total = _positive("max_total_tool_calls", limit)
        return self

    def unlimited_total_tool_calls(self) -> Self:
        """No limit for all tools together."""
        self._max_total = None
        return self

    def on_limit_exceeded(self, behavior: LimitBehavior | str) -> Self:
        """THROW (default) or RETURN_ERROR_RESPONSE."""
        self._behavior = LimitBehavior(behavior)
        return self

    def resolution_fallback_enabled(self, enabled: bool = True) -> Self:
        """Look unknown tool names up through the resolver."""
        self._fallback = enabled
        return self

    def max_concurrency(self, limit: int | None) -> Self:
        """At most this many calls of one batch at once (``None``: no cap)."""
        self._max_concurrency = limit
        return self

    def build(self) -> DefaultToolCallingManager:
        """The manager with these settings."""
        return DefaultToolCallingManager(
            tool_callback_resolver=self._resolver,
            exception_processor=self._processor,
            limits=ToolCallLimits(
                self._max_calls_per_tool,
                per_tool=self._per_tool,
                excluded_tools=frozenset(self._excluded),
                max_total_tool_calls=self._max_total,
                on_limit_exceeded=self._behavior,
            ),
            resolution_fallback_enabled=self._fallback,
            max_concurrency=self._max_concurrency,
        )
