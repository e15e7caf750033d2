from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import (
    DefaultToolCallingManager,
    DefaultToolCallingManagerBuilder,
    DefaultToolExecutionExceptionProcessor,
    LimitBehavior,
    StaticToolCallbackResolver,
    ToolCallLimits,
)


def test_an_unconfigured_builder_gives_the_defaults() -> None:
    builder = DefaultToolCallingManager.builder()
    assert isinstance(builder, DefaultToolCallingManagerBuilder)
    m = builder.build()
    assert m.limits == ToolCallLimits()
    assert m.tool_callback_resolver is None
    assert isinstance(m.exception_processor, DefaultToolExecutionExceptionProcessor)
    assert (m.resolution_fallback_enabled, m.max_concurrency) == (False, None)


def test_every_setting_reaches_the_manager() -> None:
    resolver = StaticToolCallbackResolver()
    processor = DefaultToolExecutionExceptionProcessor(always_throw=True)
    m = (
        DefaultToolCallingManager.builder()
        .tool_callback_resolver(resolver)
        .exception_processor(processor)
        .max_calls_per_tool(5)
        .max_calls_for_tool("search", 2)
        .unlimited_calls_for_tool("clock")
        .exclude_tool_from_limit("log")
        .max_total_tool_calls(20)
        .on_limit_exceeded("RETURN_ERROR_RESPONSE")
        .resolution_fallback_enabled()
        .max_concurrency(4)
        .build()
    )
    assert m.tool_callback_resolver is resolver
    assert m.exception_processor is processor
    assert m.limits == ToolCallLimits(
        5,
        per_tool={"search": 2, "clock": None},
        excluded_tools=frozenset({"log"}),
        max_total_tool_calls=20,
        on_limit_exceeded=LimitBehavior.RETURN_ERROR_RESPONSE,
    )
    assert (m.resolution_fallback_enabled, m.max_concurrency) == (True, 4)


def test_unlimited_methods() -> None:
    m = (
        DefaultToolCallingManager.builder()
        .unlimited_calls_per_tool()
        .unlimited_total_tool_calls()
        .build()
    )
    assert m.limits == ToolCallLimits.unlimited()


def test_a_per_tool_limit_and_an_exclusion_replace_each_other_like_spring() -> None:
    limited_again = (
        DefaultToolCallingManager.builder()
        .exclude_tool_from_limit("a")
        .max_calls_for_tool("a", 3)
        .build()
    )
    assert (limited_again.limits.per_tool, limited_again.limits.excluded_tools) == (
        {"a": 3},
        frozenset(),
    )
    excluded_again = (
        DefaultToolCallingManager.builder()
        .max_calls_for_tool("a", 3)
        .exclude_tool_from_limit("a")
        .build()
    )
    assert (excluded_again.limits.per_tool, excluded_again.limits.excluded_tools) == (
        {},
        frozenset({"a"}),
    )


def test_limits_replaces_every_limit_setting() -> None:
    limits = ToolCallLimits(3, per_tool={"x": 1}, max_total_tool_calls=9)
    assert DefaultToolCallingManager.builder().limits(limits).build().limits == limits


@pytest.mark.parametrize("value", [0, -1, 1.5])
def test_limits_must_be_positive(value: object) -> None:
    builder = DefaultToolCallingManager.builder()
    with pytest.raises(ConfigurationError, match="max_calls_per_tool must be a positive number"):
        builder.max_calls_per_tool(value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_total_tool_calls must be a positive number"):
        builder.max_total_tool_calls(value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"max_calls_for_tool\('a'\) must be a positive"):
        builder.max_calls_for_tool("a", value)  # type: ignore[arg-type]


def test_none_collaborators_are_refused() -> None:
    builder = DefaultToolCallingManager.builder()
    with pytest.raises(ConfigurationError, match="tool_callback_resolver must not be None"):
        builder.tool_callback_resolver(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="exception_processor must not be None"):
        builder.exception_processor(None)  # type: ignore[arg-type]
