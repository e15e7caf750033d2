"""Finding a tool by name when it is not attached to the request (resolution fallback).

The tool calling manager consults a resolver only when its ``resolution_fallback_enabled``
is set and the requested name is not among the request's own tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from ostinato._tool_contract import ToolCallback
from ostinato.errors import ConfigurationError

__all__ = [
    "DelegatingToolCallbackResolver",
    "StaticToolCallbackResolver",
    "ToolCallbackResolver",
]


@runtime_checkable
class ToolCallbackResolver(Protocol):
    """Looks a tool up by the name the model used."""

    def resolve(self, tool_name: str) -> ToolCallback | None:
        """The tool called ``tool_name``, or ``None`` when this resolver does not know it."""
        ...


class StaticToolCallbackResolver:
    """A fixed set of tools, looked up by their definition's name.

    Raises:
        ConfigurationError: two of the tools share a name.
    """

    __slots__ = ("_by_name",)

    def __init__(self, callbacks: Iterable[ToolCallback] = ()) -> None:
        by_name: dict[str, ToolCallback] = {}
        for cb in callbacks:
            name = cb.tool_definition.name
            if name in by_name:
                raise ConfigurationError(
                    f"StaticToolCallbackResolver got two tools named '{name}': "
                    f"{by_name[name]!r} and {cb!r}; give each tool a unique name"
                )
            by_name[name] = cb
        self._by_name: Mapping[str, ToolCallback] = by_name

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names it resolves, in the order the tools were given."""
        return tuple(self._by_name)

    def resolve(self, tool_name: str) -> ToolCallback | None:
        """The tool named exactly ``tool_name``, or ``None``."""
        return self._by_name.get(tool_name)

    def __repr__(self) -> str:
        return f"StaticToolCallbackResolver({list(self._by_name)!r})"


class DelegatingToolCallbackResolver:
    """Asks each resolver in turn; the first that knows the name wins."""

    __slots__ = ("_resolvers",)

    def __init__(self, resolvers: Iterable[ToolCallbackResolver] = ()) -> None:
        self._resolvers = tuple(resolvers)

    @property
    def resolvers(self) -> tuple[ToolCallbackResolver, ...]:
        """The resolvers, in the order they are asked."""
        return self._resolvers

    def resolve(self, tool_name: str) -> ToolCallback | None:
        """The first non-``None`` answer of the resolvers, or ``None``."""
        for resolver in self._resolvers:
            found = resolver.resolve(tool_name)
            if found is not None:
                return found
        return None

    def __repr__(self) -> str:
        return f"DelegatingToolCallbackResolver({list(self._resolvers)!r})"
