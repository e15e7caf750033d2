"""Building repositories and the memory advisor from :class:`~ostinato_memory.MemorySettings`.

What the plugin's hooks register, callable on their own too. Settings are read with
core's ``load_settings``, so a bad value is one ``ConfigurationError`` naming the
variable; an unknown repository name is one naming ``OSTINATO_MEMORY_REPOSITORY`` and
the repositories there are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ostinato.errors import ConfigurationError, PluginError
from ostinato.memory import ChatMemoryRepository
from ostinato_memory._in_memory import InMemoryChatMemoryRepository
from ostinato_memory._message_advisor import MessageChatMemoryAdvisor
from ostinato_memory._window import MessageWindowChatMemory

if TYPE_CHECKING:
    from ostinato.plugins import FactoryContext
    from ostinato_memory._settings import MemorySettings
    from ostinato_memory._sqlite import SQLiteChatMemoryRepository

__all__ = [
    "create_chat_memory_repository",
    "create_in_memory_repository",
    "create_memory_advisor",
    "create_sqlite_repository",
    "load_memory_settings",
]


def load_memory_settings() -> MemorySettings:
    """The plugin's settings from the environment (and ``.env``).

    Raises:
        ConfigurationError: a variable has a bad value (named, with what was expected).
    """
    from ostinato.settings import load_settings
    from ostinato_memory._settings import MemorySettings

    return load_settings(MemorySettings)


def _context(registry: Any) -> FactoryContext:
    from ostinato.plugins import FactoryContext
    from ostinato.settings import Settings, load_settings

    return FactoryContext(registry=registry, settings=load_settings(Settings))


def create_in_memory_repository() -> InMemoryChatMemoryRepository:
    """The ``in-memory`` repository: a new, empty one."""
    return InMemoryChatMemoryRepository()


def create_sqlite_repository(settings: MemorySettings | None = None) -> SQLiteChatMemoryRepository:
    """The ``sqlite`` repository at ``OSTINATO_MEMORY_SQLITE_PATH`` (or the default path).
    Nothing is opened until it is first used."""
    from ostinato_memory._sqlite import SQLiteChatMemoryRepository

    settings = settings if settings is not None else load_memory_settings()
    return SQLiteChatMemoryRepository(settings.sqlite_path)


def _registered(registry: Any) -> Mapping[str, Any]:
    entries = getattr(registry, "chat_memory_repositories", None)
    return entries if isinstance(entries, Mapping) else {}


def create_chat_memory_repository(
    name: str,
    settings: MemorySettings | None = None,
    registry: Any = None,
    *,
    context: FactoryContext | None = None,
) -> ChatMemoryRepository:
    """The repository registered as ``name``.

    Args:
        name: ``in-memory``, ``sqlite``, or a name another plugin registered.
        settings: this plugin's settings (default: read from the environment).
        registry: the plugin :class:`~ostinato.plugins.Registry`, to find other plugins'
            repositories (without it only this plugin's are known).
        context: the factory context other plugins' repository factories are called
            with (default: one made of ``registry`` and core's settings).

    Raises:
        ConfigurationError: no repository has that name (the known ones are listed).
        PluginError: the factory returned something that is not a repository.
    """
    own: dict[str, Callable[[], ChatMemoryRepository]] = {
        "in-memory": create_in_memory_repository,
        "sqlite": lambda: create_sqlite_repository(settings),
    }
    registered = _registered(registry)
    if name in own:
        factory = own[name]
    elif name in registered:
        registration = registered[name]

        def factory() -> ChatMemoryRepository:
            from ostinato.plugins import Registration, call_factory

            if not isinstance(registration, Registration):  # a registry look-alike
                made: ChatMemoryRepository = registration.value()
                return made
            found: ChatMemoryRepository = call_factory(
                "register_chat_memory_repositories",
                registration,
                context if context is not None else _context(registry),
            )
            return found
    else:
        known = sorted({*own, *registered})
        raise ConfigurationError(
            f"OSTINATO_MEMORY_REPOSITORY={name!r} names no chat memory repository\n"
            f"  installed: {', '.join(known)}\n"
            f"fix: set it to one of: {', '.join(known)} (or install the plugin providing it)"
        )
    repository = factory()
    if not isinstance(repository, ChatMemoryRepository):
        raise PluginError(
            f"the chat memory repository factory {name!r} returned "
            f"{type(repository).__name__}\n"
            "  expected: an ostinato.memory.ChatMemoryRepository\n"
            "fix: return a repository (find_conversation_ids, find_by_conversation_id, "
            "save_all, delete_by_conversation_id)"
        )
    return repository


def create_memory_advisor(
    registry: Any = None,
    settings: MemorySettings | None = None,
    *,
    context: FactoryContext | None = None,
) -> MessageChatMemoryAdvisor | None:
    """The advisor of auto-configured clients, or ``None`` unless ``OSTINATO_MEMORY_ENABLED``.

    A :class:`~ostinato_memory.MessageChatMemoryAdvisor` at its default order (outside the
    tool loop) over a :class:`~ostinato_memory.MessageWindowChatMemory` of
    ``OSTINATO_MEMORY_MAX_MESSAGES`` in the ``OSTINATO_MEMORY_REPOSITORY`` repository,
    with ``OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID`` as its default conversation.

    Args:
        registry: the plugin registry, to find other plugins' repositories.
        settings: this plugin's settings (default: read from the environment).
        context: the factory context, passed on to other plugins' repository factories.

    Raises:
        ConfigurationError: a setting is wrong, or the repository name is unknown.
    """
    if settings is None:
        settings = load_memory_settings()
    if not settings.enabled:
        return None
    repository = create_chat_memory_repository(
        settings.repository, settings, registry, context=context
    )
    return MessageChatMemoryAdvisor(
        MessageWindowChatMemory(repository, max_messages=settings.max_messages),
        default_conversation_id=settings.default_conversation_id,
    )
