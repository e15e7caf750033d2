"""The ``mcp`` plugin's settings (``OSTINATO_MCP_*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["McpSettings"]


class McpSettings(PluginSettings):
    """Which MCP servers auto-configured clients use.

    Attributes:
        config: the ``mcpServers`` JSON file (``OSTINATO_MCP_CONFIG``).
        servers: the servers of the file to use, comma-separated (``OSTINATO_MCP_SERVERS``;
            empty: all that are not ``"disabled": true``).
        tool_prefix: how tool names of several servers are kept apart
            (``OSTINATO_MCP_TOOL_PREFIX``: ``clashes``, ``always`` or ``never``).
    """

    model_config = SettingsConfigDict(env_prefix="OSTINATO_MCP_")

    config: Path | None = None
    servers: str = ""
    tool_prefix: Literal["clashes", "always", "never"] = "clashes"

    @property
    def server_names(self) -> list[str] | None:
        """The names in :attr:`servers`, or ``None`` for all."""
        names = [n.strip() for n in self.servers.split(",") if n.strip()]
        return names or None
