"""The ``mcp`` plugin's hook implementations (entry point ``ostinato: mcp``).

Import-light on purpose: only ``ostinato.plugins`` is imported here; the MCP SDK,
pydantic-settings and the plugin's own modules are imported when a hook's factory or the
command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl

if TYPE_CHECKING:
    from ostinato_mcp._toolset import McpToolset

__all__ = [
    "SETTINGS_PREFIX",
    "TOOL_SET_NAME",
    "create_mcp_tools",
    "register_commands",
    "register_settings",
    "register_tools",
    "run_mcp_command",
]

#: The tool set's name, for ``OSTINATO_TOOLS__ENABLED``.
TOOL_SET_NAME: Final = "mcp"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_MCP_"


def create_mcp_tools(context: FactoryContext) -> list[McpToolset]:
    """The ``mcp`` tool set: the servers of ``OSTINATO_MCP_CONFIG`` as one
    :class:`~ostinato_mcp.McpToolset`. Nothing starts here: the servers start when the
    first request needs their tools (a client that is never asked starts none).

    Raises:
        ConfigurationError: ``OSTINATO_MCP_CONFIG`` is not set, or the file is broken.
    """
    from ostinato.errors import ConfigurationError
    from ostinato_mcp._settings import McpSettings
    from ostinato_mcp._toolset import McpToolset

    settings = context.plugin_settings(McpSettings)
    if settings.config is None:
        raise ConfigurationError(
            "the tool set 'mcp' is enabled, and OSTINATO_MCP_CONFIG names no mcpServers file\n"
            "fix: set OSTINATO_MCP_CONFIG=path/to/mcp.json (or remove 'mcp' from "
            "OSTINATO_TOOLS__ENABLED)"
        )
    toolset = McpToolset.from_config(
        settings.config, servers=settings.server_names, prefix=settings.tool_prefix
    )
    return [toolset]


def run_mcp_command(argv: list[str]) -> int:
    """``ostinato mcp ...`` (see :mod:`ostinato_mcp._command`)."""
    from ostinato_mcp._command import main

    return main(argv)


@hookimpl
def register_tools(register: Any) -> None:
    """Register the ``mcp`` tool set, configured by ``OSTINATO_MCP_CONFIG`` (set alone, it
    is warned about: ``OSTINATO_TOOLS__ENABLED`` must list ``mcp``)."""
    register(TOOL_SET_NAME, create_mcp_tools, configured_by="OSTINATO_MCP_CONFIG")


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_mcp.McpSettings` (``OSTINATO_MCP_``)."""
    from ostinato_mcp._settings import McpSettings

    register(SETTINGS_PREFIX, McpSettings)


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato mcp``."""
    register(
        "mcp",
        "list MCP servers and their tools (ostinato mcp list), or offer the "
        "configured tools as one (ostinato mcp serve)",
        run_mcp_command,
    )
