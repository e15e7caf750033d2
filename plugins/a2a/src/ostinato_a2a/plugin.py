"""The ``a2a`` plugin's hook implementations (entry point ``ostinato: a2a``).

Import-light on purpose: only ``ostinato.plugins`` is imported here; the ``a2a-sdk`` and
the plugin's own modules are imported when a hook's factory runs. The server's routes are
found by ``ostinato serve`` through the entry point group ``ostinato_serve.routes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_a2a._tools import A2AToolset

__all__ = [
    "SETTINGS_PREFIX",
    "TOOL_SET_NAME",
    "create_a2a_tools",
    "register_settings",
    "register_tools",
]

#: The tool set's name, for ``OSTINATO_TOOLS__ENABLED``.
TOOL_SET_NAME: Final = "a2a"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_A2A_"


def create_a2a_tools(context: FactoryContext) -> list[A2AToolset]:
    """The ``a2a`` tool set: the agents of ``OSTINATO_A2A_AGENTS`` and
    ``OSTINATO_A2A_CONFIG`` as one :class:`~ostinato_a2a.A2AToolset`. Nothing is fetched
    here: the cards are read when the first request needs the tools.

    Raises:
        ConfigurationError: no agent is configured, or the file is broken.
    """
    from ostinato.errors import ConfigurationError
    from ostinato_a2a._config import agents_from_settings
    from ostinato_a2a._settings import A2ASettings
    from ostinato_a2a._tools import A2AToolset

    agents = agents_from_settings(context.plugin_settings(A2ASettings))
    if not agents:
        raise ConfigurationError(
            "the tool set 'a2a' is enabled, and no A2A agent is configured\n"
            "fix: set OSTINATO_A2A_AGENTS=https://agent.example/ (comma-separated) or "
            "OSTINATO_A2A_CONFIG=path/to/agents.json (or remove 'a2a' from "
            "OSTINATO_TOOLS__ENABLED)"
        )
    return [A2AToolset(agents)]


@hookimpl
def register_tools(register: Any) -> None:
    """Register the ``a2a`` tool set, configured by ``OSTINATO_A2A_AGENTS``."""
    register(TOOL_SET_NAME, create_a2a_tools, configured_by="OSTINATO_A2A_AGENTS")


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_a2a.A2ASettings` (``OSTINATO_A2A_``)."""
    from ostinato_a2a._settings import A2ASettings

    register(SETTINGS_PREFIX, A2ASettings)
