"""ostinato: the tool-calling loop of LLM applications, run through a chain of advisors.

The public surface follows three rules (``tests/core/test_public_api.py`` enforces them):

1. **The top level exports every name user code types to use or extend the client**: the
   client, its builder and result specs; the advisor contracts, the chain and what flows
   through it; messages, prompts and options; model responses and their metadata; the tool
   loop, its settings and its exits; tools. Specialised names have one documented home
   below it: the errors (``ostinato.errors``, the root ``OstinatoError`` is here too), the
   advisor-context keys (``ostinato.context_keys``), the testing kit (``ostinato.testing``),
   plugin and configuration machinery (``ostinato.plugins``, ``ostinato.config``), tool
   plumbing (``ostinato.tools``).
2. **One home per name**: a name is defined in one module; packages re-export that same
   object and never define another of the same name.
3. **No private reach-ins across modules**: code reads ``x._name`` only where ``_name`` is
   defined in the same module; elsewhere it goes through a public or package-internal
   name.

The light names are imported eagerly; heavy ones (auto-configuration) lazily, so that
``import ostinato`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.advisors import (
    Advisor,
    AdvisorChain,
    BaseAdvisor,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    LoopExitReason,
    MemoryAdvisor,
    NoProgressAction,
    Ordered,
    StreamAdvisor,
    ToolAdvisor,
    ToolCallingAdvisor,
    ToolCallingAdvisorBuilder,
    ToolCallingAdvisorSettings,
    ToolLoopExit,
    ToolLoopExitListener,
    UsageLimits,
)
from ostinato.client import (
    AdvisorParams,
    CallResponseSpec,
    ChatClient,
    ChatClientBuilder,
    ChatClientRequestSpec,
    StreamResponseSpec,
)
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
    ChatGenerationMetadata,
    ChatModel,
    ChatResponse,
    ChatResponseMetadata,
    FinishReason,
    Generation,
    MessageAggregator,
    Usage,
)
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.prompt_template import PromptTemplate
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
    from ostinato.events import LoopEvent
    from ostinato.runtime import CancelScope
    from ostinato.tools import (
        ApprovalDecision,
        ApprovalPolicy,
        ApprovalRequest,
        Approver,
        PendingToolCalls,
    )
    from ostinato.units import UnitStack, UnitWrapper

#: The version of ostinato and of every plugin distribution released with it: the one
#: place it is written (each pyproject.toml reads it from here).
__version__ = "0.1.0"

__all__ = [
    "Advisor",
    "AdvisorChain",
    "AdvisorParams",
    "ApprovalDecision",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "AssistantMessage",
    "AutoConfiguration",
    "BaseAdvisor",
    "CallAdvisor",
    "CallResponseSpec",
    "CancelScope",
    "ChatClient",
    "ChatClientBuilder",
    "ChatClientRequest",
    "ChatClientRequestSpec",
    "ChatClientResponse",
    "ChatGenerationMetadata",
    "ChatModel",
    "ChatOptions",
    "ChatResponse",
    "ChatResponseMetadata",
    "DefaultToolCallingManager",
    "FinishReason",
    "Generation",
    "LoopEvent",
    "LoopExitReason",
    "Media",
    "MemoryAdvisor",
    "MessageAggregator",
    "NoProgressAction",
    "Ordered",
    "OstinatoError",
    "PendingToolCalls",
    "Prompt",
    "PromptTemplate",
    "StreamAdvisor",
    "StreamResponseSpec",
    "SystemMessage",
    "ToolAdvisor",
    "ToolCall",
    "ToolCallback",
    "ToolCallingAdvisor",
    "ToolCallingAdvisorBuilder",
    "ToolCallingAdvisorSettings",
    "ToolCallingChatOptions",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionResult",
    "ToolLoopExit",
    "ToolLoopExitListener",
    "ToolMetadata",
    "ToolResponse",
    "ToolResponseMessage",
    "UnitStack",
    "UnitWrapper",
    "Usage",
    "UsageLimits",
    "UserMessage",
    "__version__",
    "chat_client",
    "tool",
    "tool_callbacks",
]

# Auto-configuration imports dependency-injector and pydantic-settings (~100 ms): only on
# use (PEP 562; only __getattr__: dir() stays the default). The approval values and the
# event classes load with their modules, on first use, too.
__getattr__ = lazy_exports(
    __name__,
    {
        "AutoConfiguration": "ostinato.config",
        "chat_client": "ostinato.config",
        "LoopEvent": "ostinato.events",
        "ApprovalDecision": "ostinato.tools._approval",
        "ApprovalPolicy": "ostinato.tools._approval",
        "ApprovalRequest": "ostinato.tools._approval",
        "Approver": "ostinato.tools._approval",
        "CancelScope": "ostinato.runtime._cancel_scope",
        "PendingToolCalls": "ostinato.tools._pending",
        "UnitStack": "ostinato.units._stack",
        "UnitWrapper": "ostinato.units._stack",
    },
)[0]
