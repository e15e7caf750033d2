"""What every bundled tool index keeps apart: sessions are isolated, re-indexing replaces
a session's tools, clearing forgets one, and concurrent sessions never mix."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.tools import ToolDefinition
from ostinato_tool_search import KeywordToolIndex, RegexToolIndex, ToolIndex

pytestmark = pytest.mark.parametrize("make", [KeywordToolIndex, RegexToolIndex])


def tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(name, description, '{"type":"object"}')


async def test_sessions_are_isolated_replaced_by_reindexing_and_cleared(make):
    index = make()
    assert isinstance(index, ToolIndex)
    await index.index_tools("a", [tool("alpha", "first letter")])
    await index.index_tools("b", [tool("beta", "second letter")])
    assert await index.search("a", "letter") == ["alpha"]
    assert await index.search("b", "letter") == ["beta"]
    assert await index.search("unknown", "letter") == []
    await index.index_tools("a", [tool("gamma", "third letter")])
    assert await index.search("a", "letter") == ["gamma"]
    assert await index.search("b", "letter") == ["beta"]
    await index.clear_index("a")
    await index.clear_index("never-indexed")
    assert await index.search("a", "letter") == []
    assert index.session_ids == ["b"]


async def test_concurrent_sessions_do_not_mix(make):
    index = make()

    async def conversation(n: int) -> list[str]:
        await index.index_tools(f"s{n}", [tool(f"tool{n}", "shared words here")])
        await asyncio.sleep(0)
        return await index.search(f"s{n}", "shared words")

    results = await asyncio.gather(*(conversation(n) for n in range(50)))
    assert results == [[f"tool{n}"] for n in range(50)]


async def test_an_empty_tool_set_finds_nothing(make):
    index = make()
    await index.index_tools("s", [])
    assert await index.search("s", "anything") == []
    assert await index.search("s", "") == []
