"""IndexedSessions: fingerprints decide re-indexing; eviction clears the index."""

from __future__ import annotations

from ostinato.tools import ToolDefinition
from ostinato_tool_search import (
    AlwaysEvictStrategy,
    IndexedSessions,
    LruEvictionStrategy,
    NeverEvictStrategy,
    tool_set_fingerprint,
)
from tests.plugins.tool_search.fakes import RecordingToolIndex


def definition(name: str, description: str = "d", schema: str = "{}") -> ToolDefinition:
    return ToolDefinition(name, description, schema)


def test_the_fingerprint_ignores_order_and_sees_every_field():
    a, b = definition("a"), definition("b")
    assert tool_set_fingerprint([a, b]) == tool_set_fingerprint([b, a])
    assert tool_set_fingerprint([a]) != tool_set_fingerprint([definition("a", "other")])
    assert tool_set_fingerprint([a]) != tool_set_fingerprint([definition("a", schema='{"x":1}')])
    assert tool_set_fingerprint([a, b]) != tool_set_fingerprint([a])
    # Field boundaries count: ("ab", "c") is not ("a", "bc").
    assert tool_set_fingerprint([definition("ab", "c")]) != tool_set_fingerprint(
        [definition("a", "bc")]
    )


async def test_prepare_indexes_once_per_tool_set():
    index = RecordingToolIndex()
    sessions = IndexedSessions(index, NeverEvictStrategy())
    assert await sessions.prepare("s", [definition("a")]) is True
    assert await sessions.prepare("s", [definition("a")]) is False
    assert await sessions.prepare("s", [definition("b")]) is True
    assert index.indexed == [("s", ["a"]), ("s", ["b"])]
    assert "s" in sessions and len(sessions) == 1


async def test_always_evict_reindexes_every_turn_and_keeps_the_session():
    index = RecordingToolIndex()
    sessions = IndexedSessions(index, AlwaysEvictStrategy())
    await sessions.prepare("s", [definition("a")])
    await sessions.prepare("s", [definition("a")])
    assert index.cleared == ["s", "s"]
    assert index.indexed_sessions == ["s", "s"]
    assert index.session_ids == ["s"]


async def test_evicted_sessions_are_cleared_and_forgotten():
    index = RecordingToolIndex()
    lru = LruEvictionStrategy(2)
    sessions = IndexedSessions(index, lru)
    for name in ("a", "b", "c"):
        await sessions.prepare(name, [definition("t")])
    assert index.cleared == ["a"]
    assert "a" not in sessions
    await sessions.evict("b")
    assert index.cleared == ["a", "b"]
    assert index.session_ids == ["c"]
    await sessions.prepare("d", [definition("t")])
    assert index.cleared == ["a", "b"], "b's removal freed its place in the LRU"
