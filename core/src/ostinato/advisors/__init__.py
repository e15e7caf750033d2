"""Advisors: the chain that wraps every model call, and the tool loop that lives in it.

The structured-output validator, the logger and the JSON Schema checker are imported
lazily (PEP 562), so ``import ostinato`` does not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.advisors._aggregation import ChatClientMessageAggregator
from ostinato.advisors._api import (
    Advisor,
    BaseAdvisor,
    CallAdvisor,
    MemoryAdvisor,
    Ordered,
    StreamAdvisor,
    ToolAdvisor,
)
from ostinato.advisors._chain import AdvisorChain
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._loop_exit import (
    LoopExitReason,
    ToolLoopExit,
    ToolLoopExitListener,
    ToolLoopExitReason,
)
from ostinato.advisors._model_advisors import ChatModelCallAdvisor, ChatModelStreamAdvisor
from ostinato.advisors._no_progress import NoProgressAction
from ostinato.advisors._order import advisors_inside_tool_loop, check_tool_advisors
from ostinato.advisors._tool_calling import ToolCallingAdvisor
from ostinato.advisors._tool_calling_builder import ToolCallingAdvisorBuilder
from ostinato.advisors._tool_calling_settings import (
    ToolCallingAdvisorSettings,
    ToolExecutionEligibilityChecker,
    default_eligibility_checker,
)
from ostinato.advisors._usage_limits import UsageLimits
from ostinato.context_keys import OUTPUT_FORMAT, SENT_OPTIONS, TOOL_LOOP_ROUND

__all__ = [
    "DEFAULT_FAILURE_RESPONSE",
    "OUTPUT_FORMAT",
    "SENT_OPTIONS",
    "TOOL_LOOP_ROUND",
    "Advisor",
    "AdvisorChain",
    "BaseAdvisor",
    "CallAdvisor",
    "ChatClientMessageAggregator",
    "ChatClientRequest",
    "ChatClientResponse",
    "ChatModelCallAdvisor",
    "ChatModelStreamAdvisor",
    "LoopExitReason",
    "MemoryAdvisor",
    "NoProgressAction",
    "Ordered",
    "SafeGuardAdvisor",
    "SimpleLoggerAdvisor",
    "StreamAdvisor",
    "StructuredOutputValidationAdvisor",
    "StructuredOutputValidationAdvisorBuilder",
    "ToolAdvisor",
    "ToolCallingAdvisor",
    "ToolCallingAdvisorBuilder",
    "ToolCallingAdvisorSettings",
    "ToolExecutionEligibilityChecker",
    "ToolLoopExit",
    "ToolLoopExitListener",
    "ToolLoopExitReason",
    "UsageLimits",
    "advisors_inside_tool_loop",
    "check_tool_advisors",
    "default_eligibility_checker",
    "validate_json_schema",
]


if TYPE_CHECKING:
    from ostinato.advisors._json_schema import validate_json_schema
    from ostinato.advisors._logger import SimpleLoggerAdvisor
    from ostinato.advisors._safeguard import DEFAULT_FAILURE_RESPONSE, SafeGuardAdvisor
    from ostinato.advisors._structured_output import (
        StructuredOutputValidationAdvisor,
        StructuredOutputValidationAdvisorBuilder,
    )


# PEP 562: imported on first use (only __getattr__: dir() stays the default).
__getattr__ = lazy_exports(
    __name__,
    {
        "DEFAULT_FAILURE_RESPONSE": "ostinato.advisors._safeguard",
        "SafeGuardAdvisor": "ostinato.advisors._safeguard",
        "SimpleLoggerAdvisor": "ostinato.advisors._logger",
        "StructuredOutputValidationAdvisor": "ostinato.advisors._structured_output",
        "StructuredOutputValidationAdvisorBuilder": "ostinato.advisors._structured_output",
        "validate_json_schema": "ostinato.advisors._json_schema",
    },
)[0]
