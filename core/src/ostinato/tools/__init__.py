"""Tools: the ``@tool`` decorator, tool callbacks, schemas, and the tool calling manager."""

from ostinato.tools._callback import (
    ToolCallback,
    ToolCallbackProvider,
    ToolContext,
    ToolDefinition,
    ToolMetadata,
)
from ostinato.tools._result import ToolCallingManager, ToolExecutionResult

__all__ = [
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionResult",
    "ToolMetadata",
]
