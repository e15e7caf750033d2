"""RegexToolIndex and its query patterns (its sessions are checked with every index's, in
test_index_sessions.py)."""

from __future__ import annotations

import locale
import re
from collections.abc import Iterator

import pytest

from ostinato.tools import ToolDefinition
from ostinato_tool_search import RegexToolIndex, query_to_regex_pattern
from ostinato_tool_search._regex import MAX_PATTERN_LENGTH


def tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(name, description, '{"type":"object"}')


@pytest.mark.parametrize(
    ("query", "pattern"),
    [
        ("weather tools", "(?i)(weather|tools)"),
        ("get user data", "(?i)(get|user|data)"),
        ("", ".*"),
        ("   ", ".*"),
        ("the weather, in Paris!", "(?i)(weather|paris)"),
        ("weather WEATHER weather", "(?i)(weather)"),
        ("a b", "(?i)(a|b)"),  # only short words: they are kept rather than nothing
        ("the of", "(?i)(the|of)"),  # only stop words: likewise
        ("c++ & f(x)", "(?i)(c|f|x)"),
        ("price$ 3.5", "(?i)(price)"),
    ],
)
def test_queries_become_one_case_insensitive_alternation(query, pattern):
    assert query_to_regex_pattern(query) == pattern


def test_punctuation_never_reaches_the_pattern():
    pattern = query_to_regex_pattern("what's (new)? [v2.0] a*b")
    assert pattern == "(?i)(what|new|v2)"
    re.compile(pattern)


def test_long_queries_are_cut_by_dropping_trailing_words():
    words = [f"word{n:03d}" for n in range(100)]
    pattern = query_to_regex_pattern(" ".join(words))
    assert len(pattern) <= MAX_PATTERN_LENGTH
    assert pattern.startswith("(?i)(word000|word001|")
    assert pattern.endswith(")")


@pytest.fixture
def turkish_locale() -> Iterator[str | None]:
    """The process locale set to Turkish where the system has it (else left alone)."""
    saved = locale.setlocale(locale.LC_ALL)
    chosen = None
    for name in ("tr_TR.UTF-8", "tr_TR.utf8", "tr_TR", "Turkish_Turkey.1254"):
        try:
            chosen = locale.setlocale(locale.LC_ALL, name)
            break
        except locale.Error:
            continue
    yield chosen
    locale.setlocale(locale.LC_ALL, saved)


def test_lower_casing_ignores_the_process_locale(turkish_locale):
    # Java's toLowerCase() under a Turkish locale turns "I" into a dotless "ı"; str.lower
    # follows Unicode alone, whatever the locale (asserted under tr_TR where installed).
    assert query_to_regex_pattern("GET INVENTORY") == "(?i)(get|inventory)"
    assert query_to_regex_pattern("LIST ITEMS") == "(?i)(list|items)"


async def test_tools_are_ranked_by_name_then_description_matches():
    index = RegexToolIndex()
    await index.index_tools(
        "s",
        [
            tool("calculator", "Evaluate arithmetic"),
            tool("forecast", "Weather forecast for the coming days"),
            tool("weatherNow", "Current weather for a city"),
        ],
    )
    assert await index.search("s", "weather") == ["weatherNow", "forecast"]
    assert await index.search("s", "arithmetic") == ["calculator"]
    assert await index.search("s", "astronomy") == []


async def test_a_blank_query_lists_every_tool_in_order_up_to_the_limit():
    index = RegexToolIndex(default_max_results=2)
    await index.index_tools("s", [tool(f"t{n}", f"tool {n}") for n in range(5)])
    assert await index.search("s", "") == ["t0", "t1"]
    assert await index.search("s", "", 4) == ["t0", "t1", "t2", "t3"]
