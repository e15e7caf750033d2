"""Calling plugin factories: which plugin gave what, and what a factory can receive."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ostinato.plugins import Registration, Registry

__all__ = ["accepts", "installed", "own_settings"]


def installed(entries: Mapping[str, Registration[Any]]) -> str:
    """``name (source), ...`` of ``entries``, for messages."""
    return ", ".join(f"{name} ({reg.plugin.source})" for name, reg in sorted(entries.items()))


def own_settings(
    registry: Registry, plugin: object, plugin_settings: Mapping[str, Any] | None
) -> Any:
    """The loaded settings ``plugin`` registered, when it registered exactly one class."""
    if not plugin_settings:
        return None
    prefixes = [p for p, r in registry.settings.items() if r.plugin == plugin]
    return plugin_settings.get(prefixes[0]) if len(prefixes) == 1 else None


def accepts(function: Any, parameter: str) -> bool:
    """Whether ``function`` can be called with the keyword ``parameter``."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return parameter in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
