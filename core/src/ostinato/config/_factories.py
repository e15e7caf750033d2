"""Calling plugin factories: the context they get, and which plugin gave what."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.plugins import FactoryContext, Registration, Registry
from ostinato.settings import Settings, load_settings

__all__ = ["factory_context", "installed"]


def installed(entries: Mapping[str, Registration[Any]]) -> str:
    """``name (source), ...`` of ``entries``, for messages."""
    return ", ".join(f"{name} ({reg.plugin.source})" for name, reg in sorted(entries.items()))


def factory_context(
    registry: Registry, settings: Settings | None, plugin_settings: Mapping[str, Any] | None
) -> FactoryContext:
    """The context factories are called with; core's settings read when not given."""
    return FactoryContext(
        registry=registry,
        settings=settings if settings is not None else load_settings(Settings),
        loaded_settings=dict(plugin_settings or {}),
    )
