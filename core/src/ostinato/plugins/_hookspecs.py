"""The hooks a plugin may implement, declared once in :data:`HOOKS`.

Every hook runs once, at boot, and receives a ``register`` callback; a plugin calls it
once per contribution. Hooks are boot-time only: the advisor chain is the call-time
mechanism. Implement them with :data:`hookimpl`::

    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("acme", lambda context, model_name: AcmeChatModel(model_name))

:data:`HOOKS` is the one declaration of the hooks: pluggy's specifications
(:class:`HookSpecs`), :data:`HOOK_NAMES`, the registry's kinds and the calling
convention of each hook's factories derive from it; the registry's fields and the plugin
guide's hook reference are checked against it by the test suite. Keyword arguments may be
added to a hook later; an implementation names only the ones it needs. This module
imports nothing heavy: only pluggy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

import pluggy

__all__ = ["HOOKS", "HOOK_NAMES", "PROJECT_NAME", "Hook", "HookSpecs", "hookimpl", "hookspec"]

#: The pluggy project name, shared by the markers and the plugin manager.
PROJECT_NAME: Final = "ostinato"

#: Marks a hook specification (used by :class:`HookSpecs` only).
hookspec: Final = pluggy.HookspecMarker(PROJECT_NAME)

#: Marks a plugin's hook implementation: ``@hookimpl def register_chat_models(register): ...``.
hookimpl: Final = pluggy.HookimplMarker(PROJECT_NAME)


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


#: Every hook, in the order of the plugin guide's hook reference. Adding a hook: a row
#: here, its field on :class:`~ostinato.plugins.Registry`, its section in the guide.
HOOKS: Final[tuple[Hook, ...]] = (
    Hook(
        "register_chat_models",
        "chat_models",
        "chat model provider",
        "register(provider: str, factory: (context: FactoryContext, model_name: str) -> ChatModel)",
        "factory",
        ("model_name",),
        "Contribute chat model providers. ``OSTINATO_MODEL=provider:model`` selects one;\n"
        "the factory gets the part after the colon (empty: the provider's default model)\n"
        "and imports the heavy modules (SDKs, httpx) only when it is called.",
    ),
    Hook(
        "register_tool_advisors",
        "tool_advisors",
        "tool advisor",
        "register(name: str, factory: (context: FactoryContext, tool_calling_manager) "
        "-> ToolAdvisor)",
        "factory",
        ("tool_calling_manager",),
        "Contribute tool advisors (the advisor running the tool loop). Core registers\n"
        "``default``; one installed replacement takes over from it, and\n"
        "``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR`` chooses among several.",
    ),
    Hook(
        "register_advisors",
        "advisors",
        "advisor",
        "register(name: str, factory: (context: FactoryContext) -> Advisor | None)",
        "factory",
        (),
        "Contribute advisors added to every auto-configured client; the factory returns\n"
        "``None`` when the plugin's own settings leave the advisor off.",
    ),
    Hook(
        "register_chat_memory_repositories",
        "chat_memory_repositories",
        "chat memory repository",
        "register(name: str, factory: (context: FactoryContext) -> ChatMemoryRepository)",
        "factory",
        (),
        "Contribute chat memory repositories, by name.",
    ),
    Hook(
        "register_tools",
        "tools",
        "tool set",
        "register(name: str, factory: (context: FactoryContext) -> Iterable[ToolCallback], "
        "*, configured_by: str | None = None)",
        "factory",
        (),
        "Contribute named tool sets; a set becomes a default tool set of auto-configured\n"
        "clients only when ``OSTINATO_TOOLS__ENABLED`` lists its name. ``configured_by``\n"
        "names the plugin's variable that configures the set (``OSTINATO_MCP_CONFIG``):\n"
        "when it is set and the set is not enabled, building a client warns\n"
        "(``ToolSetNotEnabledWarning``) which variable enables it.",
        ("configured_by",),
    ),
    Hook(
        "register_durable_engines",
        "durable_engines",
        "durable engine",
        "register(name: str, factory: (context: FactoryContext) -> DurableEngine)",
        "factory",
        (),
        "Contribute durable execution engines (``ostinato.durable.DurableEngine``): they\n"
        "queue durable turns for workers and record their units;\n"
        "``ostinato.durable.durable_engine()`` opens the installed one.",
    ),
    Hook(
        "register_settings",
        "settings",
        "settings prefix",
        "register(prefix: str, settings_class: type[BaseSettings])",
        "settings",
        (),
        "Declare the plugin's settings class under a flat prefix such as\n"
        '``"OSTINATO_ACME_"``, so ``ostinato config`` shows the settings and the\n'
        "unknown-variable warning knows them.",
    ),
    Hook(
        "register_commands",
        "commands",
        "command",
        "register(name: str, help: str, run: (argv: list[str]) -> int)",
        "command",
        (),
        "Contribute ``ostinato`` subcommands; ``run`` receives the arguments after the\n"
        "subcommand's name and returns the exit code.",
    ),
)

#: The names of every hook, in the order of :data:`HOOKS`.
HOOK_NAMES: Final[tuple[str, ...]] = tuple(hook.name for hook in HOOKS)


def _specification(hook: Hook) -> Callable[..., None]:
    def specification(self: Any, register: Any) -> None:
        """(replaced below)"""

    specification.__name__ = hook.name
    specification.__qualname__ = f"HookSpecs.{hook.name}"
    specification.__doc__ = f"``{hook.registers}``\n\n{hook.doc}"
    marked: Callable[..., None] = hookspec(specification)
    return marked


#: The hook specifications pluggy reads, one method per row of :data:`HOOKS` (each takes
#: only ``register``; its docstring is the row's signature and description).
HookSpecs: Final[type] = type(
    "HookSpecs",
    (),
    {
        "__doc__": "The hooks a plugin may implement (each a plain function in its module).",
        "__module__": __name__,
        **{hook.name: _specification(hook) for hook in HOOKS},
    },
)
