"""The shapes of what plugins register: factory and callback types, for annotations.

A factory is called with the :class:`~ostinato.plugins.FactoryContext` first, then what
its hook adds (the model name, the tool calling manager); each ``*Factory`` alias says
so. Each hook's ``register`` callback has its alias (``RegisterChatModel``), which the
hook's specification in :mod:`ostinato.plugins._hookspecs` annotates ``register`` with.

Type aliases only; importing this module imports nothing else of ostinato at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from ostinato.advisors import Advisor, ToolAdvisor
    from ostinato.durable import DurableEngine
    from ostinato.memory import ChatMemoryRepository
    from ostinato.model import ChatModel
    from ostinato.plugins._context import FactoryContext
    from ostinato.tools import ToolCallback, ToolCallingManager
    from ostinato.units import UnitWrapper

__all__ = [
    "AdvisorFactory",
    "ChatMemoryRepositoryFactory",
    "ChatModelFactory",
    "CommandRunner",
    "DurableEngineFactory",
    "RegisterAdvisor",
    "RegisterChatMemoryRepository",
    "RegisterChatModel",
    "RegisterCommand",
    "RegisterDurableEngine",
    "RegisterFactory",
    "RegisterSettings",
    "RegisterToolAdvisor",
    "RegisterToolSet",
    "RegisterUnitWrapper",
    "ToolAdvisorFactory",
    "ToolSetFactory",
    "UnitWrapperFactory",
]

#: ``(context, model_name) -> ChatModel``, registered with ``register_chat_models``.
ChatModelFactory: TypeAlias = "Callable[[FactoryContext, str], ChatModel]"
#: ``(context, tool_calling_manager) -> ToolAdvisor``, registered with
#: ``register_tool_advisors``.
ToolAdvisorFactory: TypeAlias = "Callable[[FactoryContext, ToolCallingManager], ToolAdvisor]"
#: ``(context) -> Advisor | None``, registered with ``register_advisors``.
AdvisorFactory: TypeAlias = "Callable[[FactoryContext], Advisor | None]"
#: ``(context) -> ChatMemoryRepository``, registered with
#: ``register_chat_memory_repositories``.
ChatMemoryRepositoryFactory: TypeAlias = "Callable[[FactoryContext], ChatMemoryRepository]"
#: ``(context) -> Iterable[ToolCallback]``, registered with ``register_tools``.
ToolSetFactory: TypeAlias = "Callable[[FactoryContext], Iterable[ToolCallback]]"
#: ``(context) -> DurableEngine``, registered with ``register_durable_engines``.
DurableEngineFactory: TypeAlias = "Callable[[FactoryContext], DurableEngine]"
#: ``(context) -> UnitWrapper | Iterable[UnitWrapper] | None``, registered with
#: ``register_unit_wrappers``.
UnitWrapperFactory: TypeAlias = (
    "Callable[[FactoryContext], UnitWrapper | Iterable[UnitWrapper] | None]"
)
#: ``(argv) -> exit code``, registered with ``register_commands``.
CommandRunner: TypeAlias = Callable[[list[str]], int]

#: Any factory hook's ``register`` callback, untyped: ``register(name, factory)``.
RegisterFactory: TypeAlias = Callable[[str, Any], None]
#: ``register_chat_models``'s callback: ``register(provider, factory)``.
RegisterChatModel: TypeAlias = Callable[[str, ChatModelFactory], None]
#: ``register_tool_advisors``'s callback: ``register(name, factory)``.
RegisterToolAdvisor: TypeAlias = Callable[[str, ToolAdvisorFactory], None]
#: ``register_advisors``'s callback: ``register(name, factory)``.
RegisterAdvisor: TypeAlias = Callable[[str, AdvisorFactory], None]
#: ``register_chat_memory_repositories``'s callback: ``register(name, factory)``.
RegisterChatMemoryRepository: TypeAlias = Callable[[str, ChatMemoryRepositoryFactory], None]
#: ``register_durable_engines``'s callback: ``register(name, factory)``.
RegisterDurableEngine: TypeAlias = Callable[[str, DurableEngineFactory], None]

#: ``register_unit_wrappers``'s callback: ``register(name, factory)``.
RegisterUnitWrapper: TypeAlias = Callable[[str, UnitWrapperFactory], None]


class RegisterToolSet(Protocol):
    """``register_tools``'s callback: ``register(name, factory, *, configured_by=None)``."""

    def __call__(
        self, name: str, factory: ToolSetFactory, *, configured_by: str | None = None
    ) -> None: ...


#: The ``register`` callback of ``register_settings``: ``register(prefix, settings_class)``.
RegisterSettings: TypeAlias = Callable[[str, type[Any]], None]
#: The ``register`` callback of ``register_commands``: ``register(name, help, run)``.
RegisterCommand: TypeAlias = Callable[[str, str, CommandRunner], None]
