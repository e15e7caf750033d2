"""A tool of an MCP server as an ostinato ``ToolCallback``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ostinato.errors import ToolArgumentsError
from ostinato.tools import ToolContext, ToolDefinition, ToolEffect, ToolMetadata, input_answer

if TYPE_CHECKING:
    from ostinato_mcp._server import McpServer

__all__ = ["McpTool", "McpToolMetadata", "build_tool", "effect_of"]

_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint")


def effect_of(annotations: Mapping[str, Any] | None) -> ToolEffect | None:
    """The effect class a tool's MCP annotations give it.

    ``readOnlyHint: true`` is read-only. Otherwise, with the protocol's defaults for a
    hint left out (``destructiveHint`` true, ``idempotentHint`` false): destructive
    when ``destructiveHint`` holds (idempotent or not: a destructive call is never run
    again unasked), else idempotent when ``idempotentHint`` holds, else side-effecting.
    A server that sends none of the three hints says nothing: the tool stays undeclared
    (run as before effect classes existed), rather than every such tool being taken for
    destructive.
    """
    if not annotations or not any(h in annotations for h in _HINTS):
        return None
    if annotations.get("readOnlyHint") is True:
        return ToolEffect.READ_ONLY
    if annotations.get("destructiveHint", True) is not False:
        return ToolEffect.DESTRUCTIVE
    if annotations.get("idempotentHint") is True:
        return ToolEffect.IDEMPOTENT
    return ToolEffect.SIDE_EFFECTING


@dataclass(frozen=True, slots=True)
class McpToolMetadata(ToolMetadata):
    """How an MCP tool is run, and what the server said about it beyond its schema.

    Attributes:
        server: the server's name.
        tool_name: the tool's name on the server (the model may see it prefixed).
        output_schema: the JSON schema of its structured result, if it declares one.
        annotations: its hints (``readOnlyHint``, ``destructiveHint``...), as sent.

    ``requires_approval`` (of :class:`~ostinato.tools.ToolMetadata`) is set when the
    server's ``requireApproval`` covers the tool, so each call waits for a decision;
    ``effect`` comes from the annotations (:func:`effect_of`).
    ``may_ask_input`` says a call may ask the user for input (an MCP elicitation), which
    the turn then waits for like an approval.
    """

    server: str = ""
    tool_name: str = ""
    output_schema: Mapping[str, Any] | None = field(default=None, compare=False)
    annotations: Mapping[str, Any] | None = field(default=None, compare=False)
    may_ask_input: bool = True


class McpTool:
    """One tool of an :class:`~ostinato_mcp.McpServer`, called through the server's session
    on the caller's event loop."""

    __slots__ = ("_definition", "_metadata", "server")

    def __init__(self, server: McpServer, definition: ToolDefinition, metadata: McpToolMetadata):
        self.server = server
        self._definition = definition
        self._metadata = metadata

    @property
    def tool_definition(self) -> ToolDefinition:
        """Name (prefixed when the toolset says so), description and input schema."""
        return self._definition

    @property
    def tool_metadata(self) -> McpToolMetadata:
        """The server, the tool's own name, its output schema and annotations."""
        return self._metadata

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Call the tool on its server; the result as text.

        Raises:
            ToolInputRequired: the server asks the user for input (the call waits).
            ToolArgumentsError: ``arguments`` is not a JSON object.
            ToolExecutionError: the server reported an error, could not be reached, died
                during the call or did not answer in time.
        """
        name = self._definition.name
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': not JSON: {exc.msg}", tool_name=name
            ) from exc
        if not isinstance(parsed, dict):
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': expected a JSON object", tool_name=name
            )
        return await self.server.call_tool(
            self._metadata.tool_name, parsed, model_name=name, answer=input_answer()
        )

    def __repr__(self) -> str:
        return f"McpTool({self._definition.name!r}, server={self._metadata.server!r})"


def build_tool(server: McpServer, tool: Any, prefix: str) -> McpTool:
    """The :class:`McpTool` of ``server``'s listed ``tool`` (an SDK ``Tool``), named
    ``prefix + its name``; it needs approval when the server's ``requireApproval`` says so."""
    approval = server.config.require_approval
    annotations = (
        tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
    )
    definition = ToolDefinition(
        prefix + tool.name,
        (tool.description or "").strip() or ToolDefinition.default_description(tool.name),
        json.dumps(tool.input_schema or {"type": "object"}, ensure_ascii=False),
    )
    metadata = McpToolMetadata(
        timeout=None,
        server=server.name,
        tool_name=tool.name,
        output_schema=tool.output_schema,
        annotations=annotations,
        effect=effect_of(annotations),
        requires_approval=approval == "always"
        or (not isinstance(approval, str) and tool.name in approval),
    )
    return McpTool(server, definition, metadata)
