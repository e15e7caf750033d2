"""A unit wrapper that records in a list, as an engine would (for the seam's tests)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ostinato.units import Unit, UnitOrder, UnitWrapper


class Journal:
    """Records each unit's JSON result by sequence; replays what it holds (only the units
    of a durable turn, as an engine's recorder does)."""

    def __init__(self, entries: dict[int, tuple[str, str, str]] | None = None) -> None:
        self.entries: dict[int, tuple[str, str, str]] = dict(entries or {})
        self.ran: list[tuple[str, str]] = []
        self.inputs: list[dict[str, Any]] = []

    async def __call__(self, unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
        if not unit.durable:
            return await next(unit)
        self.inputs.append(json.loads(json.dumps(unit.describe())))  # JSON, every time
        recorded = self.entries.get(unit.sequence)
        if recorded is not None:
            kind, name, text = recorded
            assert (kind, name) == (unit.kind.value, unit.name), (recorded, unit)
            return unit.decode(json.loads(text))
        result = await next(unit)
        self.ran.append((unit.kind.value, unit.name))
        self.entries[unit.sequence] = (unit.kind.value, unit.name, json.dumps(unit.encode(result)))
        return result

    def wrapper(self, name: str = "journal") -> UnitWrapper:
        """The journal as a durable engine's wrapper of every kind of unit."""
        return UnitWrapper.of_all(name, UnitOrder.DURABLE, self)

    def first(self, count: int) -> Journal:
        """A journal holding only the first ``count`` units (a crash after them)."""
        return Journal({k: v for k, v in self.entries.items() if k <= count})
