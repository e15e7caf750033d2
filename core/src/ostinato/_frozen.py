"""A read-only mapping used for metadata on value objects.

It is a ``dict`` underneath (so it serialises to JSON and compares like one), but refuses
every mutation, so frozen dataclasses that hold it stay immutable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["FrozenDict", "freeze"]


class FrozenDict(dict[str, Any]):
    """An immutable ``dict`` of string keys; equal to any mapping with the same items."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refused: a FrozenDict never changes (build a new one with :meth:`merged`)."""
        raise TypeError(f"{type(self).__name__} is read-only; build a new one instead")

    __setitem__ = _readonly
    __delitem__ = _readonly
    clear = _readonly
    pop = _readonly
    popitem = _readonly
    setdefault = _readonly
    update = _readonly
    __ior__ = _readonly

    def __hash__(self) -> int:  # type: ignore[override]  # dict is unhashable; we are not
        try:
            return hash(frozenset(self.items()))
        except TypeError:  # unhashable values: hash the keys, ignoring their order like __eq__
            return hash(frozenset(self))

    # dict.fromkeys fills the new mapping through __setitem__, which we refuse.
    @classmethod
    def fromkeys(cls, iterable: Iterable[str], value: Any = None) -> FrozenDict:  # type: ignore[override]
        """A new mapping of ``iterable``'s keys, each mapped to ``value``."""
        return cls(dict.fromkeys(iterable, value))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (type(self), (dict(self),))

    def __repr__(self) -> str:
        return dict.__repr__(self)

    def merged(self, other: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> FrozenDict:
        """A new mapping with ``other``'s entries laid over these ones."""
        merged = dict(self)
        merged.update(other)
        return FrozenDict(merged)


EMPTY: FrozenDict = FrozenDict()


def freeze(value: Mapping[str, Any] | None) -> FrozenDict:
    """Return ``value`` as a :class:`FrozenDict` (the same object if it already is one)."""
    if value is None:
        return EMPTY
    if isinstance(value, FrozenDict):
        return value
    return FrozenDict(value)
