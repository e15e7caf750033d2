from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import (
    DelegatingToolCallbackResolver,
    StaticToolCallbackResolver,
    ToolCallbackResolver,
)
from tests.core.tools.fakes import RecordingCallback


def test_static_resolver_finds_tools_by_exact_name() -> None:
    a, b = RecordingCallback("toolA"), RecordingCallback("toolB")
    resolver = StaticToolCallbackResolver([a, b])
    assert isinstance(resolver, ToolCallbackResolver)
    assert resolver.resolve("toolA") is a
    assert resolver.resolve("toolB") is b
    assert resolver.resolve("toola") is None
    assert resolver.tool_names == ("toolA", "toolB")
    assert repr(resolver) == "StaticToolCallbackResolver(['toolA', 'toolB'])"


def test_static_resolver_refuses_two_tools_with_one_name() -> None:
    with pytest.raises(ConfigurationError, match="two tools named 'toolA'"):
        StaticToolCallbackResolver([RecordingCallback("toolA"), RecordingCallback("toolA")])


def test_delegating_resolver_asks_in_order_and_first_answer_wins() -> None:
    first, second = RecordingCallback("shared"), RecordingCallback("shared")
    only_second = RecordingCallback("other")
    resolver = DelegatingToolCallbackResolver(
        [StaticToolCallbackResolver([first]), StaticToolCallbackResolver([second, only_second])]
    )
    assert resolver.resolve("shared") is first
    assert resolver.resolve("other") is only_second
    assert resolver.resolve("missing") is None
    assert DelegatingToolCallbackResolver().resolve("anything") is None
