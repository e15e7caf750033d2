"""Tools: the ``@tool`` decorator, tool callbacks, schemas, and the tool calling manager."""

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato._tool_contract import (
    ToolCallback,
    ToolCallbackProvider,
    ToolContext,
    ToolDefinition,
    ToolMetadata,
)
from ostinato.tools._collect import tool_callbacks
from ostinato.tools._conversion import DONE_RESULT, tool_result_to_text
from ostinato.tools._decorator import TOOL_SPEC_ATTRIBUTE, ToolSpec, tool, tool_spec_of
from ostinato.tools._exceptions import (
    DefaultToolExecutionExceptionProcessor,
    ToolExecutionExceptionProcessor,
    tool_error_text,
)
from ostinato.tools._function import FunctionToolCallback
from ostinato.tools._limits import (
    LimitBehavior,
    LimitBreach,
    ToolCallLimits,
    count_prior_tool_calls,
)
from ostinato.tools._manager import DefaultToolCallingManager
from ostinato.tools._manager_builder import DefaultToolCallingManagerBuilder
from ostinato.tools._resolver import (
    DelegatingToolCallbackResolver,
    StaticToolCallbackResolver,
    ToolCallbackResolver,
)
from ostinato.tools._result import (
    ToolCallingManager,
    ToolExecutionResult,
    tool_call_limit_generation,
)
from ostinato.tools._schema import json_schema_for

if TYPE_CHECKING:
    from ostinato.tools._approval import (
        ApprovalDecision,
        ApprovalKind,
        ApprovalPolicy,
        ApprovalRequest,
        ApprovalSettings,
        Approver,
    )
    from ostinato.tools._input import InputAnswer, InputRequest, ToolInputRequired, input_answer
    from ostinato.tools._pending import PendingToolCalls, ResumedTurn

__all__ = [
    "DONE_RESULT",
    "TOOL_SPEC_ATTRIBUTE",
    "ApprovalDecision",
    "ApprovalKind",
    "ApprovalPolicy",
    "ApprovalRequest",
    "ApprovalSettings",
    "Approver",
    "DefaultToolCallingManager",
    "DefaultToolCallingManagerBuilder",
    "DefaultToolExecutionExceptionProcessor",
    "DelegatingToolCallbackResolver",
    "FunctionToolCallback",
    "InputAnswer",
    "InputRequest",
    "LimitBehavior",
    "LimitBreach",
    "PendingToolCalls",
    "ResumedTurn",
    "StaticToolCallbackResolver",
    "ToolCallLimits",
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolCallbackResolver",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionExceptionProcessor",
    "ToolExecutionResult",
    "ToolInputRequired",
    "ToolMetadata",
    "ToolSpec",
    "count_prior_tool_calls",
    "input_answer",
    "json_schema_for",
    "tool",
    "tool_call_limit_generation",
    "tool_callbacks",
    "tool_error_text",
    "tool_result_to_text",
    "tool_spec_of",
]

# Approvals load on first use (they need json; ``import ostinato`` stays light).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            (
                "ApprovalDecision",
                "ApprovalKind",
                "ApprovalPolicy",
                "ApprovalRequest",
                "ApprovalSettings",
                "Approver",
            ),
            "ostinato.tools._approval",
        ),
        **dict.fromkeys(
            ("InputAnswer", "InputRequest", "ToolInputRequired", "input_answer"),
            "ostinato.tools._input",
        ),
        "PendingToolCalls": "ostinato.tools._pending",
        "ResumedTurn": "ostinato.tools._pending",
    },
)
