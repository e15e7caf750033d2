"""The hook specifications: what a plugin may contribute, one hook per kind.

Every hook runs once, at boot, and receives a ``register`` callback; a plugin calls it
once per contribution. Hooks are boot-time only: the advisor chain is the call-time
mechanism. Implement them with :data:`hookimpl`::

    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("acme", lambda model_name: AcmeChatModel(model_name))

Keyword arguments may be added to a hook later; an implementation names only the ones it
needs. This module imports nothing heavy: only pluggy.
"""

from __future__ import annotations

from typing import Final

import pluggy

from ostinato.plugins._types import RegisterCommand, RegisterFactory, RegisterSettings

__all__ = ["HOOK_NAMES", "PROJECT_NAME", "HookSpecs", "hookimpl", "hookspec"]

#: The pluggy project name, shared by the markers and the plugin manager.
PROJECT_NAME: Final = "ostinato"

#: Marks a hook specification (used by :class:`HookSpecs` only).
hookspec: Final = pluggy.HookspecMarker(PROJECT_NAME)

#: Marks a plugin's hook implementation: ``@hookimpl def register_chat_models(register): ...``.
hookimpl: Final = pluggy.HookimplMarker(PROJECT_NAME)


class HookSpecs:
    """The hooks a plugin may implement (each a plain function in the plugin's module)."""

    @hookspec
    def register_chat_models(self, register: RegisterFactory) -> None:
        """Contribute chat model providers.

        ``register(provider: str, factory: (model_name: str) -> ChatModel)``. The provider
        is what ``OSTINATO_MODEL=provider:model`` names; the factory builds the model (and
        imports the heavy modules: SDKs, httpx) only when it is called.
        """

    @hookspec
    def register_tool_advisors(self, register: RegisterFactory) -> None:
        """Contribute tool advisors (the advisor running the tool loop).

        ``register(name: str, factory: (tool_calling_manager) -> ToolAdvisor)``. Core
        registers ``default``; one installed replacement takes over from it, and
        ``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR`` chooses among several.
        """

    @hookspec
    def register_advisors(self, register: RegisterFactory) -> None:
        """Contribute advisors added to every auto-configured client.

        ``register(name: str, factory: () -> Advisor | None)``; the factory returns
        ``None`` when the plugin's own settings leave the advisor off.
        """

    @hookspec
    def register_chat_memory_repositories(self, register: RegisterFactory) -> None:
        """Contribute chat memory repositories.

        ``register(name: str, factory: () -> ChatMemoryRepository)``.
        """

    @hookspec
    def register_tools(self, register: RegisterFactory) -> None:
        """Contribute named tool sets.

        ``register(name: str, factory: () -> Iterable[ToolCallback])``; a set becomes a
        default tool set of auto-configured clients only when ``OSTINATO_TOOLS__ENABLED``
        lists its name.
        """

    @hookspec
    def register_settings(self, register: RegisterSettings) -> None:
        """Declare the plugin's settings class.

        ``register(prefix: str, settings_class: type[BaseSettings])`` with a flat prefix
        such as ``"OSTINATO_ACME_"``, so ``ostinato config`` shows the settings and the
        unknown-variable warning knows them.
        """

    @hookspec
    def register_commands(self, register: RegisterCommand) -> None:
        """Contribute ``ostinato`` subcommands.

        ``register(name: str, help: str, run: (argv: list[str]) -> int)``; ``run`` receives
        the arguments after the subcommand's name and returns the exit code.
        """


#: The names of every hook, in the order of the table in the plugin guide.
HOOK_NAMES: Final[tuple[str, ...]] = (
    "register_chat_models",
    "register_tool_advisors",
    "register_advisors",
    "register_chat_memory_repositories",
    "register_tools",
    "register_settings",
    "register_commands",
)
