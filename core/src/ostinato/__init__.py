"""ostinato: the tool-calling loop of LLM applications, run through a chain of advisors.

The light names are imported eagerly; heavy ones (auto-configuration) lazily, so that
``import ostinato`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.advisors import (
    Advisor,
    BaseAdvisor,
    CallAdvisor,
    MemoryAdvisor,
    Ordered,
    StreamAdvisor,
    ToolAdvisor,
    ToolCallingAdvisor,
)
from ostinato.client import AdvisorParams, ChatClient
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
from ostinato.model import (
    ChatModel,
    ChatResponse,
    FinishReason,
    Generation,
    MessageAggregator,
    Usage,
)
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import (
    DefaultToolCallingManager,
    ToolCallback,
    ToolCallingManager,
    ToolContext,
    ToolDefinition,
    ToolExecutionResult,
    ToolMetadata,
    tool,
    tool_callbacks,
)

if TYPE_CHECKING:
    from ostinato.config import AutoConfiguration, chat_client
    from ostinato.tools import ApprovalDecision, PendingToolCalls

__version__ = "0.1.0"

__all__ = [
    "Advisor",
    "AdvisorParams",
    "ApprovalDecision",
    "AssistantMessage",
    "AutoConfiguration",
    "BaseAdvisor",
    "CallAdvisor",
    "ChatClient",
    "ChatModel",
    "ChatOptions",
    "ChatResponse",
    "DefaultToolCallingManager",
    "FinishReason",
    "Generation",
    "Media",
    "MemoryAdvisor",
    "MessageAggregator",
    "Ordered",
    "OstinatoError",
    "PendingToolCalls",
    "Prompt",
    "StreamAdvisor",
    "SystemMessage",
    "ToolAdvisor",
    "ToolCall",
    "ToolCallback",
    "ToolCallingAdvisor",
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
    "chat_client",
    "tool",
    "tool_callbacks",
]

# Auto-configuration imports dependency-injector and pydantic-settings (~100 ms): only on
# use (PEP 562; only __getattr__: dir() stays the default).
# The approval values load with their module, on first use, too.
__getattr__ = lazy_exports(
    __name__,
    {
        "AutoConfiguration": "ostinato.config",
        "chat_client": "ostinato.config",
        "ApprovalDecision": "ostinato.tools._approval",
        "PendingToolCalls": "ostinato.tools._pending",
    },
)[0]
