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

from ostinato._lazy import lazy_package
from ostinato.advisors import Advisor as Advisor
from ostinato.advisors import AdvisorChain as AdvisorChain
from ostinato.advisors import BaseAdvisor as BaseAdvisor
from ostinato.advisors import CallAdvisor as CallAdvisor
from ostinato.advisors import ChatClientRequest as ChatClientRequest
from ostinato.advisors import ChatClientResponse as ChatClientResponse
from ostinato.advisors import LoopExitReason as LoopExitReason
from ostinato.advisors import MemoryAdvisor as MemoryAdvisor
from ostinato.advisors import NoProgressAction as NoProgressAction
from ostinato.advisors import Ordered as Ordered
from ostinato.advisors import StreamAdvisor as StreamAdvisor
from ostinato.advisors import ToolAdvisor as ToolAdvisor
from ostinato.advisors import ToolCallingAdvisor as ToolCallingAdvisor
from ostinato.advisors import ToolCallingAdvisorBuilder as ToolCallingAdvisorBuilder
from ostinato.advisors import ToolCallingAdvisorSettings as ToolCallingAdvisorSettings
from ostinato.advisors import ToolLoopExit as ToolLoopExit
from ostinato.advisors import ToolLoopExitListener as ToolLoopExitListener
from ostinato.advisors import UsageLimits as UsageLimits
from ostinato.client import AdvisorParams as AdvisorParams
from ostinato.client import CallResponseSpec as CallResponseSpec
from ostinato.client import ChatClient as ChatClient
from ostinato.client import ChatClientBuilder as ChatClientBuilder
from ostinato.client import ChatClientRequestSpec as ChatClientRequestSpec
from ostinato.client import StreamResponseSpec as StreamResponseSpec
from ostinato.errors import OstinatoError as OstinatoError
from ostinato.messages import AssistantMessage as AssistantMessage
from ostinato.messages import Media as Media
from ostinato.messages import SystemMessage as SystemMessage
from ostinato.messages import ToolCall as ToolCall
from ostinato.messages import ToolResponse as ToolResponse
from ostinato.messages import ToolResponseMessage as ToolResponseMessage
from ostinato.messages import UserMessage as UserMessage
from ostinato.model import ChatGenerationMetadata as ChatGenerationMetadata
from ostinato.model import ChatModel as ChatModel
from ostinato.model import ChatResponse as ChatResponse
from ostinato.model import ChatResponseMetadata as ChatResponseMetadata
from ostinato.model import FinishReason as FinishReason
from ostinato.model import Generation as Generation
from ostinato.model import MessageAggregator as MessageAggregator
from ostinato.model import Usage as Usage
from ostinato.prompt import ChatOptions as ChatOptions
from ostinato.prompt import Prompt as Prompt
from ostinato.prompt import ToolCallingChatOptions as ToolCallingChatOptions
from ostinato.prompt_template import PromptTemplate as PromptTemplate
from ostinato.tools import DefaultToolCallingManager as DefaultToolCallingManager
from ostinato.tools import ToolCallback as ToolCallback
from ostinato.tools import ToolCallingManager as ToolCallingManager
from ostinato.tools import ToolContext as ToolContext
from ostinato.tools import ToolDefinition as ToolDefinition
from ostinato.tools import ToolExecutionResult as ToolExecutionResult
from ostinato.tools import ToolMetadata as ToolMetadata
from ostinato.tools import tool as tool
from ostinato.tools import tool_callbacks as tool_callbacks

#: The version of ostinato and of every plugin distribution released with it: the one
#: place it is written (each pyproject.toml reads it from here).
__version__ = "0.1.0"


# Auto-configuration imports dependency-injector and pydantic-settings (~100 ms): only on
# use (PEP 562; ``__all__`` and ``__getattr__`` only, ``[:2]``: dir() stays the default).
# The approval values and the event classes load with their modules, on first use, too.
if TYPE_CHECKING:
    from ostinato.config import AutoConfiguration as AutoConfiguration
    from ostinato.config import chat_client as chat_client
    from ostinato.events import LoopEvent as LoopEvent
    from ostinato.runtime._cancel_scope import CancelScope as CancelScope
    from ostinato.runtime._steering import Steering as Steering
    from ostinato.tools._approval import ApprovalDecision as ApprovalDecision
    from ostinato.tools._approval import ApprovalPolicy as ApprovalPolicy
    from ostinato.tools._approval import ApprovalRequest as ApprovalRequest
    from ostinato.tools._approval import Approver as Approver
    from ostinato.tools._pending import PendingToolCalls as PendingToolCalls
    from ostinato.units._stack import UnitStack as UnitStack
    from ostinato.units._stack import UnitWrapper as UnitWrapper
else:
    __all__, __getattr__ = lazy_package(
        __name__,
        globals(),
        {
            "UnitStack": "ostinato.units._stack",
            "UnitWrapper": "ostinato.units._stack",
            "AutoConfiguration": "ostinato.config",
            "chat_client": "ostinato.config",
            "LoopEvent": "ostinato.events",
            "ApprovalDecision": "ostinato.tools._approval",
            "ApprovalPolicy": "ostinato.tools._approval",
            "ApprovalRequest": "ostinato.tools._approval",
            "Approver": "ostinato.tools._approval",
            "CancelScope": "ostinato.runtime._cancel_scope",
            "Steering": "ostinato.runtime._steering",
            "PendingToolCalls": "ostinato.tools._pending",
        },
    )[:2]
