"""Which sessions are indexed, with which tool set, and when to forget them.

One :class:`IndexedSessions` is shared by an advisor and every per-call copy the
``ChatClient`` makes of it, so a conversation's tools are indexed once, not once per
turn. A session is (re-)indexed only when its tool set's fingerprint changes. The lock
guards the bookkeeping only; the index is never called while it is held.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence

from ostinato.tools import ToolDefinition
from ostinato_tool_search._eviction import EvictionStrategy
from ostinato_tool_search._index import ToolIndex

__all__ = ["IndexedSessions", "tool_set_fingerprint"]


def tool_set_fingerprint(tools: Iterable[ToolDefinition]) -> str:
    """A SHA-256 over the tools' names, descriptions and schemas, in name order.

    Two requests with the same tools (in any order) have the same fingerprint; a changed
    description or schema changes it.
    """
    digest = hashlib.sha256()
    for tool in sorted(tools, key=lambda t: (t.name, t.description, t.input_schema)):
        for part in (tool.name, tool.description, tool.input_schema):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
        digest.update(b"\x01")
    return digest.hexdigest()


class IndexedSessions:
    """The fingerprint of each indexed session, and the eviction of old ones.

    Args:
        index: where the tools are indexed.
        eviction: which sessions to drop as new ones arrive.
    """

    __slots__ = ("_eviction", "_fingerprints", "_index", "_lock")

    def __init__(self, index: ToolIndex, eviction: EvictionStrategy) -> None:
        self._index = index
        self._eviction = eviction
        self._fingerprints: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def index(self) -> ToolIndex:
        """The index the sessions live in."""
        return self._index

    @property
    def eviction(self) -> EvictionStrategy:
        """The eviction strategy."""
        return self._eviction

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            return session_id in self._fingerprints

    def __len__(self) -> int:
        with self._lock:
            return len(self._fingerprints)

    async def prepare(self, session_id: str, tools: Sequence[ToolDefinition]) -> bool:
        """Start a turn of ``session_id`` with ``tools``: evict what the strategy says,
        then index ``tools`` unless the session already holds exactly this set.

        Returns whether the tools were (re-)indexed.
        """
        fingerprint = tool_set_fingerprint(tools)
        with self._lock:
            evicted = self._eviction.on_access(session_id)
            for sid in evicted:
                self._fingerprints.pop(sid, None)
            current = self._fingerprints.get(session_id) == fingerprint
        for sid in sorted(evicted):
            await self._index.clear_index(sid)
            if sid != session_id:  # the turn's own session is re-indexed, not removed
                with self._lock:
                    self._eviction.on_removed(sid)
        if current:
            return False
        await self._index.index_tools(session_id, tools)
        with self._lock:
            self._fingerprints[session_id] = fingerprint
        return True

    async def evict(self, session_id: str) -> None:
        """Forget ``session_id``: clear its index and fingerprint; its next turn re-indexes."""
        with self._lock:
            self._fingerprints.pop(session_id, None)
        await self._index.clear_index(session_id)
        with self._lock:
            self._eviction.on_removed(session_id)
