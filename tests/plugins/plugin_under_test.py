"""A plugin distribution as a contract test drives it: the names its own name gives.

A plugin called ``memory-redis`` (its entry point's name) is the package
``ostinato_memory_redis``, whose ``plugin`` module the entry point names, and its settings
read the variables prefixed ``OSTINATO_MEMORY_REDIS_``. The contract modules describe each
plugin they check with a subclass of :class:`PluginUnderTest`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

__all__ = ["PluginUnderTest"]


@dataclass(frozen=True)
class PluginUnderTest:
    """One plugin distribution, known by its entry point's name."""

    name: str

    @property
    def prefix(self) -> str:
        """The prefix of its settings' variables."""
        return f"OSTINATO_{self.name.upper().replace('-', '_')}_"

    @property
    def package(self) -> ModuleType:
        """Its package."""
        return importlib.import_module(f"ostinato_{self.name.replace('-', '_')}")

    @property
    def plugin(self) -> ModuleType:
        """Its plugin module, the one the entry point names."""
        return importlib.import_module(f"{self.package.__name__}.plugin")
