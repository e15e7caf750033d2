"""The ``memory`` plugin's hook implementations (entry point ``ostinato: memory``).

Registers the repositories ``in-memory`` and ``sqlite``, the settings under
``OSTINATO_MEMORY_``, the advisor ``memory`` (``None`` unless
``OSTINATO_MEMORY_ENABLED=true``) and the command ``ostinato logs``. Import-light on
purpose: neither ``sqlite3`` nor pydantic-settings is imported until a factory runs,
because every installed plugin's hook module is imported whenever ostinato loads its
plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato.advisors import Advisor
    from ostinato.memory import ChatMemoryRepository

__all__ = [
    "ADVISOR_NAME",
    "LOGS_COMMAND",
    "SETTINGS_PREFIX",
    "in_memory_repository",
    "memory_advisor",
    "register_advisors",
    "register_chat_memory_repositories",
    "register_commands",
    "register_settings",
    "run_logs",
    "sqlite_repository",
]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_MEMORY_"
#: The name the memory advisor is registered under.
ADVISOR_NAME: Final = "memory"
#: The command listing and showing stored conversations (``ostinato logs``).
LOGS_COMMAND: Final = "logs"


def in_memory_repository(context: FactoryContext | None = None) -> ChatMemoryRepository:
    """The ``in-memory`` repository factory (a new, empty repository)."""
    from ostinato_memory._factories import create_in_memory_repository

    return create_in_memory_repository()


def sqlite_repository(context: FactoryContext | None = None) -> ChatMemoryRepository:
    """The ``sqlite`` repository factory (``OSTINATO_MEMORY_SQLITE_PATH``, from the
    context's settings, or the environment without a context)."""
    from ostinato_memory._factories import create_sqlite_repository
    from ostinato_memory._settings import MemorySettings

    settings = None if context is None else context.plugin_settings(MemorySettings)
    return create_sqlite_repository(settings)


def memory_advisor(
    context: FactoryContext | None = None, registry: Any = None, plugin_settings: Any = None
) -> Advisor | None:
    """The ``memory`` advisor factory: ``None`` unless ``OSTINATO_MEMORY_ENABLED=true``.

    Given the factory context, it reads this plugin's settings as loaded there and finds
    repositories of other plugins in its registry. Without one, ``registry`` and
    ``plugin_settings`` (this plugin's loaded settings) serve the same purpose, and the
    settings are otherwise read from the environment."""
    from ostinato_memory._settings import MemorySettings

    given: object = context
    if isinstance(given, FactoryContext):
        settings = given.plugin_settings(MemorySettings)
        if not settings.enabled:
            return None  # the default: the advisor's modules are not imported for it
        from ostinato_memory._factories import create_memory_advisor

        return create_memory_advisor(given.registry, settings, context=given)
    from ostinato_memory._factories import create_memory_advisor

    if given is not None:
        # The positional form of earlier releases: memory_advisor(registry, plugin_settings).
        return create_memory_advisor(given, registry)
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


def run_logs(argv: list[str]) -> int:
    """``ostinato logs ...``: list recent conversations, or ``show ID`` one (``--json``)."""
    from ostinato_memory._logs_command import run_logs_command

    return run_logs_command(argv)


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato logs`` (the configured repository's conversations)."""
    register(
        LOGS_COMMAND,
        "stored conversations: `ostinato logs` lists recent ones, `ostinato logs show ID` one, "
        "`ostinato logs search WORDS` searches the session logs",
        run_logs,
    )
