"""ostinato: the tool-calling loop of LLM applications, run through a chain of advisors.

The light names are imported eagerly; heavy ones (auto-configuration) lazily, so that
``import ostinato`` stays fast.
"""

from __future__ import annotations

from ostinato.errors import OstinatoError
from ostinato.messages import (
    AssistantMessage,
    Media,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatModel, ChatResponse, Generation, MessageAggregator, Usage
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import (
    ToolCallback,
    ToolCallingManager,
    ToolContext,
    ToolDefinition,
    ToolExecutionResult,
    ToolMetadata,
)

__version__ = "0.1.0"

__all__ = [
    "AssistantMessage",
    "ChatModel",
    "ChatOptions",
    "ChatResponse",
    "Generation",
    "Media",
    "MessageAggregator",
    "OstinatoError",
    "Prompt",
    "SystemMessage",
    "ToolCall",
    "ToolCallback",
    "ToolCallingChatOptions",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionResult",
    "ToolMetadata",
    "ToolResponse",
    "ToolResponseMessage",
    "Usage",
    "UserMessage",
    "__version__",
]
