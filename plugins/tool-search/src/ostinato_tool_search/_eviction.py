"""Which indexed sessions to forget: LRU (the default), TTL, always, never, or several.

The advisor calls :meth:`EvictionStrategy.on_access` at the start of every turn with the
turn's session and evicts the sessions it returns (clearing their index); it calls
:meth:`EvictionStrategy.on_removed` after any eviction, also an explicit
``evict_session``. Calls come under the advisor's lock, so strategies need none of their
own; a strategy must not be shared between advisors.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ostinato.errors import ConfigurationError

__all__ = [
    "AlwaysEvictStrategy",
    "CompositeEvictionStrategy",
    "EvictionStrategy",
    "LruEvictionStrategy",
    "NeverEvictStrategy",
    "TtlEvictionStrategy",
]


@runtime_checkable
class EvictionStrategy(Protocol):
    """Decides which sessions' indexes to drop as new sessions arrive."""

    def on_access(self, session_id: str) -> set[str]:
        """Record that ``session_id`` starts a turn; return the sessions to evict now
        (normally not ``session_id`` itself)."""
        ...

    def on_removed(self, session_id: str) -> None:
        """``session_id`` was evicted (by this strategy or explicitly): stop tracking it."""
        ...


class NeverEvictStrategy:
    """Keeps every session until it is evicted explicitly (memory grows with sessions)."""

    def on_access(self, session_id: str) -> set[str]:
        """Nothing to evict."""
        return set()

    def on_removed(self, session_id: str) -> None:
        """Nothing is tracked."""

    def __repr__(self) -> str:
        return "NeverEvictStrategy()"


class AlwaysEvictStrategy:
    """Evicts the accessed session itself, so every turn indexes afresh (the documented
    exception to "not the current session")."""

    def on_access(self, session_id: str) -> set[str]:
        """``{session_id}``."""
        return {session_id}

    def on_removed(self, session_id: str) -> None:
        """Nothing is tracked."""

    def __repr__(self) -> str:
        return "AlwaysEvictStrategy()"


class LruEvictionStrategy:
    """Keeps the ``max_sessions`` most recently used sessions.

    Args:
        max_sessions: how many sessions stay indexed (at least 1; default 1000).

    Raises:
        ConfigurationError: ``max_sessions`` is not a positive int.
    """

    DEFAULT_MAX_SESSIONS = 1000

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
            raise ConfigurationError(f"max_sessions must be a positive int, got {max_sessions!r}")
        self._max = max_sessions
        self._recent: OrderedDict[str, None] = OrderedDict()

    @property
    def max_sessions(self) -> int:
        """The capacity."""
        return self._max

    def on_access(self, session_id: str) -> set[str]:
        """Mark ``session_id`` most recent; return the least recent ones beyond capacity."""
        self._recent[session_id] = None
        self._recent.move_to_end(session_id)
        evicted: set[str] = set()
        while len(self._recent) > self._max:
            oldest, _ = self._recent.popitem(last=False)
            evicted.add(oldest)
        return evicted

    def on_removed(self, session_id: str) -> None:
        """Stop tracking ``session_id``."""
        self._recent.pop(session_id, None)

    def __repr__(self) -> str:
        return f"LruEvictionStrategy(max_sessions={self._max})"


class TtlEvictionStrategy:
    """Evicts the other sessions idle for ``ttl`` seconds or more.

    Args:
        ttl: seconds of idleness after which a session goes (positive).
        clock: the time source (default ``time.monotonic``; tests pass their own).

    Raises:
        ConfigurationError: ``ttl`` is not a positive number.
    """

    def __init__(self, ttl: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
            raise ConfigurationError(f"ttl must be a positive number of seconds, got {ttl!r}")
        self._ttl = float(ttl)
        self._clock = clock
        self._last_access: dict[str, float] = {}

    @property
    def ttl(self) -> float:
        """Seconds of idleness after which a session goes."""
        return self._ttl

    def on_access(self, session_id: str) -> set[str]:
        """Record now for ``session_id``; return (and forget) the others idle too long."""
        now = self._clock()
        self._last_access[session_id] = now
        expired = {
            sid
            for sid, last in self._last_access.items()
            if sid != session_id and now - last >= self._ttl
        }
        for sid in expired:
            del self._last_access[sid]
        return expired

    def on_removed(self, session_id: str) -> None:
        """Stop tracking ``session_id``."""
        self._last_access.pop(session_id, None)

    def __repr__(self) -> str:
        return f"TtlEvictionStrategy(ttl={self._ttl})"


class CompositeEvictionStrategy:
    """Evicts what any of ``strategies`` evicts; each hears of every removal.

    Raises:
        ConfigurationError: no strategy is given.
    """

    def __init__(self, *strategies: EvictionStrategy) -> None:
        if not strategies:
            raise ConfigurationError("CompositeEvictionStrategy needs at least one strategy")
        self._strategies = strategies

    @property
    def strategies(self) -> tuple[EvictionStrategy, ...]:
        """The combined strategies, in order."""
        return self._strategies

    def on_access(self, session_id: str) -> set[str]:
        """The union of every strategy's evictions."""
        evicted: set[str] = set()
        for strategy in self._strategies:
            evicted |= strategy.on_access(session_id)
        return evicted

    def on_removed(self, session_id: str) -> None:
        """Tell every strategy."""
        for strategy in self._strategies:
            strategy.on_removed(session_id)

    def __repr__(self) -> str:
        return f"CompositeEvictionStrategy{self._strategies!r}"
