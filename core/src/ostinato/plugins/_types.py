"""The shapes of what plugins register: factory and callback types, for annotations.

Type aliases only; importing this module imports nothing else of ostinato at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from ostinato.advisors import Advisor, ToolAdvisor
    from ostinato.durable import DurableEngine
    from ostinato.memory import ChatMemoryRepository
    from ostinato.model import ChatModel
    from ostinato.tools import ToolCallback, ToolCallingManager

__all__ = [
    "AdvisorFactory",
    "ChatMemoryRepositoryFactory",
    "ChatModelFactory",
    "CommandRunner",
    "DurableEngineFactory",
    "RegisterCommand",
    "RegisterFactory",
    "RegisterSettings",
    "ToolAdvisorFactory",
    "ToolSetFactory",
]

#: ``(model_name) -> ChatModel``, registered with ``register_chat_models``.
ChatModelFactory: TypeAlias = "Callable[[str], ChatModel]"
#: ``(tool_calling_manager) -> ToolAdvisor``, registered with ``register_tool_advisors``.
ToolAdvisorFactory: TypeAlias = "Callable[[ToolCallingManager], ToolAdvisor]"
#: ``() -> Advisor | None``, registered with ``register_advisors``.
AdvisorFactory: TypeAlias = "Callable[[], Advisor | None]"
#: ``() -> ChatMemoryRepository``, registered with ``register_chat_memory_repositories``.
ChatMemoryRepositoryFactory: TypeAlias = "Callable[[], ChatMemoryRepository]"
#: ``() -> Iterable[ToolCallback]``, registered with ``register_tools``.
ToolSetFactory: TypeAlias = "Callable[[], Iterable[ToolCallback]]"
#: ``() -> DurableEngine``, registered with ``register_durable_engines``.
DurableEngineFactory: TypeAlias = "Callable[[], DurableEngine]"
#: ``(argv) -> exit code``, registered with ``register_commands``.
CommandRunner: TypeAlias = Callable[[list[str]], int]

#: The ``register`` callback of the factory hooks: ``register(name, factory)``.
RegisterFactory: TypeAlias = Callable[[str, Any], None]
#: The ``register`` callback of ``register_settings``: ``register(prefix, settings_class)``.
RegisterSettings: TypeAlias = Callable[[str, type[Any]], None]
#: The ``register`` callback of ``register_commands``: ``register(name, help, run)``.
RegisterCommand: TypeAlias = Callable[[str, str, CommandRunner], None]
