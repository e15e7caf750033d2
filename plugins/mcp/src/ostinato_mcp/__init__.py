"""ostinato-mcp: the tools of Model Context Protocol servers as ostinato tools.

:class:`McpServer` is one server (a command over stdio, or a URL over streamable HTTP),
with its tools, resources and prompts;
:class:`McpToolset` several, with names kept apart; :func:`load_mcp_config` reads the
``mcpServers`` JSON file Claude Desktop, Cursor and VS Code read. The plugin registers the
tool set ``mcp`` (``OSTINATO_TOOLS__ENABLED=mcp`` with ``OSTINATO_MCP_CONFIG``) and the
command ``ostinato mcp list``.

Every name is imported on first access (PEP 562): loading the plugin module costs nothing
beyond ``ostinato.plugins``, and the MCP SDK is imported only when a server is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_mcp._catalog import McpResourceContent as McpResourceContent
    from ostinato_mcp._config import McpConfig as McpConfig
    from ostinato_mcp._config import McpConfigError as McpConfigError
    from ostinato_mcp._config import McpServerConfig as McpServerConfig
    from ostinato_mcp._config import load_mcp_config as load_mcp_config
    from ostinato_mcp._config import parse_mcp_config as parse_mcp_config
    from ostinato_mcp._refresh import McpToolRefreshAdvisor as McpToolRefreshAdvisor
    from ostinato_mcp._resource_tools import McpResourceTool as McpResourceTool
    from ostinato_mcp._results import DEFAULT_MAX_RESULT_CHARS as DEFAULT_MAX_RESULT_CHARS
    from ostinato_mcp._serve import build_mcp_server as build_mcp_server
    from ostinato_mcp._server import McpServer as McpServer
    from ostinato_mcp._settings import McpSettings as McpSettings
    from ostinato_mcp._tool import McpTool as McpTool
    from ostinato_mcp._tool import McpToolMetadata as McpToolMetadata
    from ostinato_mcp._toolset import McpServerUnavailableWarning as McpServerUnavailableWarning
    from ostinato_mcp._toolset import McpToolset as McpToolset
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "McpResourceContent": "ostinato_mcp._catalog",
            "McpResourceTool": "ostinato_mcp._resource_tools",
            "McpToolRefreshAdvisor": "ostinato_mcp._refresh",
            "build_mcp_server": "ostinato_mcp._serve",
            "DEFAULT_MAX_RESULT_CHARS": "ostinato_mcp._results",
            "McpConfig": "ostinato_mcp._config",
            "McpConfigError": "ostinato_mcp._config",
            "McpServer": "ostinato_mcp._server",
            "McpServerConfig": "ostinato_mcp._config",
            "McpServerUnavailableWarning": "ostinato_mcp._toolset",
            "McpSettings": "ostinato_mcp._settings",
            "McpTool": "ostinato_mcp._tool",
            "McpToolMetadata": "ostinato_mcp._tool",
            "McpToolset": "ostinato_mcp._toolset",
            "load_mcp_config": "ostinato_mcp._config",
            "parse_mcp_config": "ostinato_mcp._config",
        },
    )
