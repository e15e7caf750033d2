"""The ``memory`` plugin's hook implementations (entry point ``ostinato: memory``).

Registers the repositories ``in-memory`` and ``sqlite``, the settings under
``OSTINATO_MEMORY_``, and the advisor ``memory`` (``None`` unless
``OSTINATO_MEMORY_ENABLED=true``). Import-light on purpose: neither ``sqlite3`` nor
pydantic-settings is imported until a factory runs, because every installed plugin's
hook module is imported whenever ostinato loads its plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import hookimpl

if TYPE_CHECKING:
    from ostinato.advisors import Advisor
    from ostinato.memory import ChatMemoryRepository

__all__ = [
    "ADVISOR_NAME",
    "SETTINGS_PREFIX",
    "in_memory_repository",
    "memory_advisor",
    "register_advisors",
    "register_chat_memory_repositories",
    "register_settings",
    "sqlite_repository",
]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_MEMORY_"
#: The name the memory advisor is registered under.
ADVISOR_NAME: Final = "memory"


def in_memory_repository() -> ChatMemoryRepository:
    """The ``in-memory`` repository factory."""
    from ostinato_memory._factories import create_in_memory_repository

    return create_in_memory_repository()


def sqlite_repository() -> ChatMemoryRepository:
    """The ``sqlite`` repository factory (``OSTINATO_MEMORY_SQLITE_PATH``)."""
    from ostinato_memory._factories import create_sqlite_repository

    return create_sqlite_repository()


def memory_advisor(registry: Any = None, plugin_settings: Any = None) -> Advisor | None:
    """The ``memory`` advisor factory: ``None`` unless ``OSTINATO_MEMORY_ENABLED=true``.
    Given the plugin registry, it also finds repositories of other plugins; given this
    plugin's loaded settings, it uses them instead of reading the environment."""
    from ostinato_memory._factories import create_memory_advisor

    return create_memory_advisor(registry, plugin_settings)


@hookimpl
def register_chat_memory_repositories(register: Any) -> None:
    """Register ``in-memory`` and ``sqlite``."""
    register("in-memory", in_memory_repository)
    register("sqlite", sqlite_repository)


@hookimpl
def register_advisors(register: Any) -> None:
    """Register ``memory``, the advisor auto-configured clients get when enabled."""
    register(ADVISOR_NAME, memory_advisor)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_memory.MemorySettings` under ``OSTINATO_MEMORY_``."""
    from ostinato_memory._settings import MemorySettings

    register(SETTINGS_PREFIX, MemorySettings)
