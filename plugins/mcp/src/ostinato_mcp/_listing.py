"""A server's tool listing as the toolset keeps it: in a stable order, and with what says
when it must be read again.

Order: the first listing keeps the server's order; a later one keeps the tools already
known where they were and adds the new ones after them, in the server's order. A tool
added or removed between rounds so changes only the end of the tool list (or drops one
entry): the definitions before it stay byte-identical, and so does the prompt prefix a
provider caches.

Freshness: the listing is read again when the server announced a change
(``tools/list_changed``, or a 2026-07-28 ``subscriptions/listen`` event), or when the
``ttlMs`` of the last listing (2026-07-28) ran out. A ``ttlMs`` of 0 asks for nothing
more than the announcements: the tools are not listed again every round.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Listing"]


class Listing:
    """The tools of one server's last listing (SDK ``Tool`` values), in a stable order.

    Args:
        clock: seconds, monotonic (for tests).
    """

    __slots__ = ("_clock", "_tools", "fresh_until", "stale")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tools: tuple[Any, ...] | None = None
        #: The server announced a change that was not read yet.
        self.stale = False
        #: When the last listing's ``ttlMs`` runs out (``None``: no positive ``ttlMs``).
        self.fresh_until: float | None = None

    @property
    def listed(self) -> bool:
        """Whether the tools were listed at least once."""
        return self._tools is not None

    @property
    def needs_refresh(self) -> bool:
        """Never listed, announced as changed, or past its ``ttlMs``."""
        if self._tools is None or self.stale:
            return True
        return self.fresh_until is not None and self._clock() >= self.fresh_until

    def tools(self) -> tuple[Any, ...]:
        """The tools in their stable order (empty before the first listing)."""
        return self._tools or ()

    def update(self, listed: Sequence[Any], ttl_ms: int | None) -> None:
        """Take a new listing (``ttl_ms``: its ``ttlMs``, ``None`` when it had none)."""
        by_name: dict[str, Any] = {}
        for tool in listed:
            by_name.setdefault(tool.name, tool)  # a name listed twice: the first wins
        known = [t.name for t in self._tools or ()]
        order = [n for n in known if n in by_name] + [n for n in by_name if n not in known]
        self._tools = tuple(by_name[n] for n in order)
        self.stale = False
        positive = ttl_ms is not None and ttl_ms > 0
        self.fresh_until = self._clock() + ttl_ms / 1000 if positive and ttl_ms else None
