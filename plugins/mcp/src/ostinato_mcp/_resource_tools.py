"""A server's resources as two tools the model can call: ``<prefix>list_resources`` (the
resources and the templates, one per line) and ``<prefix>read_resource`` (the text of
one URI, a listed one or a template filled in).

Offered when the server's ``resourceTools`` is true (``McpServer(resource_tools=True)``);
the text read is data the model reads, cut to the server's ``max_result_chars``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final

from ostinato.errors import ToolArgumentsError
from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata

if TYPE_CHECKING:
    from ostinato_mcp._server import McpServer

__all__ = ["McpResourceTool", "resource_tools"]

_LIST_SCHEMA: Final = json.dumps({"type": "object", "properties": {}})
_READ_SCHEMA: Final = json.dumps(
    {
        "type": "object",
        "properties": {"uri": {"type": "string", "description": "the resource's URI"}},
        "required": ["uri"],
    }
)


class McpResourceTool:
    """``list_resources`` or ``read_resource`` of one server (a ``ToolCallback``)."""

    __slots__ = ("_definition", "read", "server")

    def __init__(self, server: McpServer, prefix: str, read: bool) -> None:
        self.server = server
        self.read = read
        if read:
            self._definition = ToolDefinition(
                f"{prefix}read_resource",
                f"Read a resource of the MCP server {server.name!r} by its URI (one that "
                f"{prefix}list_resources shows, or one of its URI templates filled in).",
                _READ_SCHEMA,
            )
        else:
            self._definition = ToolDefinition(
                f"{prefix}list_resources",
                f"List the resources and resource URI templates of the MCP server {server.name!r}.",
                _LIST_SCHEMA,
            )

    @property
    def tool_definition(self) -> ToolDefinition:
        """The tool's name, description and schema."""
        return self._definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Plain metadata: no approval, the server's timeout applies per request."""
        return ToolMetadata()

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """List the resources, or read one (the text; binary parts described).

        Raises:
            ToolArgumentsError: ``read_resource`` without a string ``uri``.
            ToolExecutionError: the server failed.
        """
        if not self.read:
            return await self._listing()
        name = self._definition.name
        try:
            uri = json.loads(arguments or "{}").get("uri")
        except (ValueError, AttributeError):
            uri = None
        if not isinstance(uri, str) or not uri:
            raise ToolArgumentsError(
                f'invalid arguments for tool \'{name}\': expected {{"uri": "..."}}',
                tool_name=name,
            )
        text = (await self.server.read_resource(uri)).text or "(empty)"
        limit = self.server.max_result_chars
        if len(text) > limit:
            text = f"{text[:limit]}\n[… {len(text) - limit} more characters cut]"
        return text

    async def _listing(self) -> str:
        lines = []
        for resource in await self.server.list_resources():
            about = f" ({resource.mime_type})" if resource.mime_type else ""
            description = f": {resource.description}" if resource.description else ""
            lines.append(f"{resource.uri}{about} {resource.name}{description}")
        for template in await self.server.list_resource_templates():
            description = f": {template.description}" if template.description else ""
            lines.append(f"template {template.uri_template} {template.name}{description}")
        return "\n".join(lines) or "The server has no resources."

    def __repr__(self) -> str:
        return f"McpResourceTool({self._definition.name!r}, server={self.server.name!r})"


def resource_tools(server: McpServer, prefix: str) -> list[McpResourceTool]:
    """The two resource tools of ``server``, named with ``prefix``."""
    return [McpResourceTool(server, prefix, read=False), McpResourceTool(server, prefix, read=True)]
