"""The hooks a plugin may implement, each a plain function below.

Every hook runs once, at boot, and receives a ``register`` callback; a plugin calls it
once per contribution. Hooks are boot-time only: the advisor chain is the call-time
mechanism. Implement them with :data:`hookimpl`::

    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("acme", lambda context, model_name: AcmeChatModel(model_name))

Each specification's docstring opens with what ``register`` takes (the plugin guide's
hook reference shows the same line) and its ``register`` parameter is typed with the
callback's alias from :mod:`ostinato.plugins._types`. :data:`HOOKS` is read off these
functions: pluggy's :class:`HookSpecs`, :data:`HOOK_NAMES`, the registry's kinds and the
calling convention of each hook's factories derive from it; the registry's fields and the
plugin guide's hook reference are checked against it by the test suite. Keyword arguments
may be added to a hook later; an implementation names only the ones it needs. This
module imports nothing heavy: only pluggy.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

import pluggy

if TYPE_CHECKING:
    from ostinato.plugins._types import (
        RegisterAdvisor,
        RegisterChatMemoryRepository,
        RegisterChatModel,
        RegisterCommand,
        RegisterDurableEngine,
        RegisterSettings,
        RegisterToolAdvisor,
        RegisterToolSet,
        RegisterUnitWrapper,
    )

__all__ = ["HOOKS", "HOOK_NAMES", "PROJECT_NAME", "Hook", "HookSpecs", "hookimpl", "hookspec"]

#: The pluggy project name, shared by the markers and the plugin manager.
PROJECT_NAME: Final = "ostinato"

#: Marks a hook specification (used by the functions of this module only).
hookspec: Final = pluggy.HookspecMarker(PROJECT_NAME)

#: Marks a plugin's hook implementation: ``@hookimpl def register_chat_models(register): ...``.
hookimpl: Final = pluggy.HookimplMarker(PROJECT_NAME)

_REGISTERS = re.compile(r"``(register\(.*?\))``", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Hook:
    """One hook: its name, where its contributions go, and how its factories are called.

    Attributes:
        name: the hook's name (``register_chat_models``).
        attribute: the :class:`~ostinato.plugins.Registry` attribute holding what it
            registers (``chat_models``).
        kind: what one contribution is called in messages (``chat model provider``).
        registers: what ``register`` takes, as the plugin guide shows it.
        registration: ``"factory"`` (``register(name, factory)``), ``"settings"``
            (``register(prefix, settings_class)``) or ``"command"``
            (``register(name, help, run)``).
        factory_arguments: for factories, what they receive after the
            :class:`~ostinato.plugins.FactoryContext` (``("model_name",)``).
        doc: what the hook is for.
        keywords: the optional keyword arguments ``register`` takes besides the name and
            the factory (kept on the :class:`~ostinato.plugins.Registration`).
    """

    name: str
    attribute: str
    kind: str
    registers: str
    registration: Literal["factory", "settings", "command"]
    factory_arguments: tuple[str, ...]
    doc: str
    keywords: tuple[str, ...] = ()


_SPECIFIED: list[tuple[Callable[..., None], Hook]] = []


def _hook(
    attribute: str,
    kind: str,
    registration: Literal["factory", "settings", "command"] = "factory",
    factory_arguments: tuple[str, ...] = (),
    keywords: tuple[str, ...] = (),
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark the function below as a hook specification and record its :class:`Hook`."""

    def specify(function: Callable[..., None]) -> Callable[..., None]:
        doc = function.__doc__ or ""
        found = _REGISTERS.search(doc)
        if found is None:  # pragma: no cover - a specification written without it
            raise TypeError(f"{function.__name__}'s docstring lacks ``register(...)``")
        registers = " ".join(found.group(1).split())
        purpose = doc[found.end() :].strip()
        purpose = "\n".join(line.strip() for line in purpose.splitlines())
        hook = Hook(
            function.__name__,
            attribute,
            kind,
            registers,
            registration,
            factory_arguments,
            purpose,
            keywords,
        )
        _SPECIFIED.append((function, hook))
        marked: Callable[..., None] = hookspec(function)
        return marked

    return specify


# The hooks, in the order of the plugin guide's hook reference. Adding a hook: a function
# here, its field on ``Registry`` and its alias in ``_types``, its section in the guide.


@_hook("chat_models", "chat model provider", factory_arguments=("model_name",))
def register_chat_models(register: RegisterChatModel) -> None:
    """``register(provider: str, factory: (context: FactoryContext, model_name: str) -> ChatModel)``

    Contribute chat model providers. ``OSTINATO_MODEL=provider:model`` selects one;
    the factory gets the part after the colon (empty: the provider's default model)
    and imports the heavy modules (SDKs, httpx) only when it is called.
    """


@_hook("tool_advisors", "tool advisor", factory_arguments=("tool_calling_manager",))
def register_tool_advisors(register: RegisterToolAdvisor) -> None:
    """``register(name: str, factory: (context: FactoryContext, tool_calling_manager)
    -> ToolAdvisor)``

    Contribute tool advisors (the advisor running the tool loop). Core registers
    ``default``; one installed replacement takes over from it, and
    ``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR`` chooses among several.
    """


@_hook("advisors", "advisor")
def register_advisors(register: RegisterAdvisor) -> None:
    """``register(name: str, factory: (context: FactoryContext) -> Advisor | None)``

    Contribute advisors added to every auto-configured client; the factory returns
    ``None`` when the plugin's own settings leave the advisor off.
    """


@_hook("chat_memory_repositories", "chat memory repository")
def register_chat_memory_repositories(register: RegisterChatMemoryRepository) -> None:
    """``register(name: str, factory: (context: FactoryContext) -> ChatMemoryRepository)``

    Contribute chat memory repositories, by name.
    """


@_hook("tools", "tool set", keywords=("configured_by",))
def register_tools(register: RegisterToolSet) -> None:
    """``register(name: str, factory: (context: FactoryContext) -> Iterable[ToolCallback],
    *, configured_by: str | None = None)``

    Contribute named tool sets; a set becomes a default tool set of auto-configured
    clients only when ``OSTINATO_TOOLS__ENABLED`` lists its name. ``configured_by``
    names the plugin's variable that configures the set (``OSTINATO_MCP_CONFIG``):
    when it is set and the set is not enabled, building a client warns
    (``ToolSetNotEnabledWarning``) which variable enables it.
    """


@_hook("durable_engines", "durable engine")
def register_durable_engines(register: RegisterDurableEngine) -> None:
    """``register(name: str, factory: (context: FactoryContext) -> DurableEngine)``

    Contribute durable execution engines (``ostinato.durable.DurableEngine``): they
    queue durable turns for workers and record their units;
    ``ostinato.durable.durable_engine()`` opens the installed one.
    """


@_hook("unit_wrappers", "unit wrapper")
def register_unit_wrappers(register: RegisterUnitWrapper) -> None:
    """``register(name: str, factory: (context: FactoryContext) -> UnitWrapper |
    Iterable[UnitWrapper] | None)``

    Contribute wrappers (``ostinato.units.UnitWrapper``) to the unit stack of every
    auto-configured client: they wrap its model rounds, tool calls and memory reads and
    writes, at the order each declares; the factory returns ``None`` when the plugin's
    own settings leave them off.
    """


@_hook("settings", "settings prefix", registration="settings")
def register_settings(register: RegisterSettings) -> None:
    """``register(prefix: str, settings_class: type[BaseSettings])``

    Declare the plugin's settings class under a flat prefix such as
    ``"OSTINATO_ACME_"``, so ``ostinato config`` shows the settings and the
    unknown-variable warning knows them.
    """


@_hook("commands", "command", registration="command")
def register_commands(register: RegisterCommand) -> None:
    """``register(name: str, help: str, run: (argv: list[str]) -> int)``

    Contribute ``ostinato`` subcommands; ``run`` receives the arguments after the
    subcommand's name and returns the exit code.
    """


#: Every hook, read off the specifications above, in their order.
HOOKS: Final[tuple[Hook, ...]] = tuple(hook for _, hook in _SPECIFIED)

#: The names of every hook, in the order of :data:`HOOKS`.
HOOK_NAMES: Final[tuple[str, ...]] = tuple(hook.name for hook in HOOKS)

#: The hook specifications pluggy reads: the functions above, gathered in one namespace
#: (each takes only ``register``; its docstring is its signature and description).
HookSpecs: Final[type] = type(
    "HookSpecs",
    (),
    {
        "__doc__": "The hooks a plugin may implement: the functions of "
        "``ostinato.plugins._hookspecs``, each a plain function in its module.",
        "__module__": __name__,
        **{function.__name__: staticmethod(function) for function, _ in _SPECIFIED},
    },
)
