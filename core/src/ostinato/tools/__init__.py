"""Tools: the ``@tool`` decorator, tool callbacks, schemas, and the tool calling manager."""

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package
from ostinato._tool_contract import InDoubtRule as InDoubtRule
from ostinato._tool_contract import Reconcile as Reconcile
from ostinato._tool_contract import ToolCallback as ToolCallback
from ostinato._tool_contract import ToolCallbackProvider as ToolCallbackProvider
from ostinato._tool_contract import ToolContext as ToolContext
from ostinato._tool_contract import ToolDefinition as ToolDefinition
from ostinato._tool_contract import ToolEffect as ToolEffect
from ostinato._tool_contract import ToolMetadata as ToolMetadata
from ostinato.tools._collect import tool_callbacks as tool_callbacks
from ostinato.tools._conversion import DONE_RESULT as DONE_RESULT
from ostinato.tools._conversion import tool_result_to_text as tool_result_to_text
from ostinato.tools._decorator import TOOL_SPEC_ATTRIBUTE as TOOL_SPEC_ATTRIBUTE
from ostinato.tools._decorator import ToolSpec as ToolSpec
from ostinato.tools._decorator import tool as tool
from ostinato.tools._decorator import tool_spec_of as tool_spec_of
from ostinato.tools._exceptions import (
    DefaultToolExecutionExceptionProcessor as DefaultToolExecutionExceptionProcessor,
)
from ostinato.tools._exceptions import (
    ToolExecutionExceptionProcessor as ToolExecutionExceptionProcessor,
)
from ostinato.tools._exceptions import tool_error_text as tool_error_text
from ostinato.tools._function import FunctionToolCallback as FunctionToolCallback
from ostinato.tools._limits import LimitBehavior as LimitBehavior
from ostinato.tools._limits import LimitBreach as LimitBreach
from ostinato.tools._limits import ToolCallLimits as ToolCallLimits
from ostinato.tools._limits import count_prior_tool_calls as count_prior_tool_calls
from ostinato.tools._manager import DefaultToolCallingManager as DefaultToolCallingManager
from ostinato.tools._manager_builder import (
    DefaultToolCallingManagerBuilder as DefaultToolCallingManagerBuilder,
)
from ostinato.tools._resolver import (
    DelegatingToolCallbackResolver as DelegatingToolCallbackResolver,
)
from ostinato.tools._resolver import StaticToolCallbackResolver as StaticToolCallbackResolver
from ostinato.tools._resolver import ToolCallbackResolver as ToolCallbackResolver
from ostinato.tools._result import ToolCallingManager as ToolCallingManager
from ostinato.tools._result import ToolExecutionResult as ToolExecutionResult
from ostinato.tools._result import tool_call_limit_generation as tool_call_limit_generation
from ostinato.tools._schema import json_schema_for as json_schema_for

# Approvals load on first use (they need json; ``import ostinato`` stays light).
if TYPE_CHECKING:
    from ostinato.tools._approval import ApprovalDecision as ApprovalDecision
    from ostinato.tools._approval import ApprovalKind as ApprovalKind
    from ostinato.tools._approval import ApprovalPolicy as ApprovalPolicy
    from ostinato.tools._approval import ApprovalRequest as ApprovalRequest
    from ostinato.tools._approval import ApprovalSettings as ApprovalSettings
    from ostinato.tools._approval import Approver as Approver
    from ostinato.tools._effects import EffectPolicy as EffectPolicy
    from ostinato.tools._effects import approve_effects as approve_effects
    from ostinato.tools._input import InputAnswer as InputAnswer
    from ostinato.tools._input import InputRequest as InputRequest
    from ostinato.tools._input import ToolInputRequired as ToolInputRequired
    from ostinato.tools._input import input_answer as input_answer
    from ostinato.tools._pending import PendingToolCalls as PendingToolCalls
    from ostinato.tools._pending import ResumedTurn as ResumedTurn
    from ostinato.tools._progress import areport_progress as areport_progress
    from ostinato.tools._progress import report_progress as report_progress
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "InputAnswer": "ostinato.tools._input",
            "InputRequest": "ostinato.tools._input",
            "ToolInputRequired": "ostinato.tools._input",
            "input_answer": "ostinato.tools._input",
            "ApprovalDecision": "ostinato.tools._approval",
            "ApprovalKind": "ostinato.tools._approval",
            "ApprovalPolicy": "ostinato.tools._approval",
            "ApprovalRequest": "ostinato.tools._approval",
            "ApprovalSettings": "ostinato.tools._approval",
            "Approver": "ostinato.tools._approval",
            "EffectPolicy": "ostinato.tools._effects",
            "approve_effects": "ostinato.tools._effects",
            "PendingToolCalls": "ostinato.tools._pending",
            "ResumedTurn": "ostinato.tools._pending",
            "areport_progress": "ostinato.tools._progress",
            "report_progress": "ostinato.tools._progress",
        },
    )
