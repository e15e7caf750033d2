"""The ``ToolIndex`` contract, and the in-memory base the bundled indexes share.

An index holds, per *session* (a conversation, or one turn), the definitions of the tools
attached to the request, and answers queries with tool names, best first. Sessions are
isolated: a search never returns another session's tools. The advisor decides when to
index and when to clear; an index only stores and ranks.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Final, Generic, Protocol, TypeVar, runtime_checkable

from ostinato.errors import ConfigurationError
from ostinato.tools import ToolDefinition

__all__ = ["DEFAULT_MAX_RESULTS", "InMemoryToolIndex", "ToolIndex", "check_max_results"]

#: How many names a search returns when neither the model nor the advisor says.
DEFAULT_MAX_RESULTS: Final = 10

S = TypeVar("S")


@runtime_checkable
class ToolIndex(Protocol):
    """Per-session search over tool definitions. Implement it to plug in another ranking
    (a vector store, a remote search service).

    Every method may be called concurrently, from several event loops; implementations
    guard their own state.
    """

    async def index_tools(self, session_id: str, tools: Sequence[ToolDefinition]) -> None:
        """Make ``tools`` the whole content of ``session_id``'s index (replacing what it
        held), keeping their order for ties."""
        ...

    async def search(
        self, session_id: str, query: str, max_results: int | None = None
    ) -> list[str]:
        """The names of the tools of ``session_id`` matching ``query``, best first, at most
        ``max_results`` (``None``: the index's default). Unknown sessions find nothing."""
        ...

    async def clear_index(self, session_id: str) -> None:
        """Forget ``session_id`` (nothing happens when it is unknown)."""
        ...


def check_max_results(value: object, what: str = "max_results") -> int | None:
    """``value`` if it is ``None`` or a positive int.

    Raises:
        ConfigurationError: it is anything else.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{what} must be a positive int or None, got {value!r}")
    return value


class InMemoryToolIndex(Generic[S]):
    """Base of the bundled indexes: one prepared structure ``S`` per session, in a dict
    guarded by a lock (never held across an ``await``).

    Subclasses implement :meth:`_prepare` (definitions -> ``S``) and :meth:`_rank`.

    Args:
        default_max_results: how many names a search returns when it is not told.
    """

    def __init__(self, *, default_max_results: int = DEFAULT_MAX_RESULTS) -> None:
        checked = check_max_results(default_max_results, "default_max_results")
        self._default_max_results: int = checked if checked is not None else DEFAULT_MAX_RESULTS
        self._sessions: dict[str, S] = {}
        self._lock = threading.Lock()

    @property
    def default_max_results(self) -> int:
        """How many names a search returns when it is not told."""
        return self._default_max_results

    @property
    def session_ids(self) -> list[str]:
        """The sessions currently indexed (for diagnostics and tests)."""
        with self._lock:
            return list(self._sessions)

    async def index_tools(self, session_id: str, tools: Sequence[ToolDefinition]) -> None:
        """Replace ``session_id``'s content with ``tools``."""
        prepared = self._prepare(tuple(tools))
        with self._lock:
            self._sessions[session_id] = prepared

    async def search(
        self, session_id: str, query: str, max_results: int | None = None
    ) -> list[str]:
        """The best ``max_results`` names of ``session_id`` for ``query`` (see the class)."""
        limit = check_max_results(max_results)
        with self._lock:
            prepared = self._sessions.get(session_id)
        if prepared is None:
            return []
        return self._rank(prepared, query, self._default_max_results if limit is None else limit)

    async def clear_index(self, session_id: str) -> None:
        """Forget ``session_id``."""
        with self._lock:
            self._sessions.pop(session_id, None)

    def _prepare(self, tools: tuple[ToolDefinition, ...]) -> S:
        raise NotImplementedError

    def _rank(self, prepared: S, query: str, limit: int) -> list[str]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(default_max_results={self._default_max_results})"
