"""Advisors: the chain that wraps every model call, and the tool loop that lives in it.

The structured-output validator, the logger and the JSON Schema checker are imported
lazily (PEP 562), so ``import ostinato`` does not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package
from ostinato.advisors._aggregation import (
    ChatClientMessageAggregator as ChatClientMessageAggregator,
)
from ostinato.advisors._api import Advisor as Advisor
from ostinato.advisors._api import BaseAdvisor as BaseAdvisor
from ostinato.advisors._api import CallAdvisor as CallAdvisor
from ostinato.advisors._api import MemoryAdvisor as MemoryAdvisor
from ostinato.advisors._api import Ordered as Ordered
from ostinato.advisors._api import StreamAdvisor as StreamAdvisor
from ostinato.advisors._api import ToolAdvisor as ToolAdvisor
from ostinato.advisors._chain import AdvisorChain as AdvisorChain
from ostinato.advisors._exchange import ChatClientRequest as ChatClientRequest
from ostinato.advisors._exchange import ChatClientResponse as ChatClientResponse
from ostinato.advisors._loop_exit import LoopExitReason as LoopExitReason
from ostinato.advisors._loop_exit import ToolLoopExit as ToolLoopExit
from ostinato.advisors._loop_exit import ToolLoopExitListener as ToolLoopExitListener
from ostinato.advisors._loop_exit import ToolLoopExitReason as ToolLoopExitReason
from ostinato.advisors._model_advisors import ChatModelCallAdvisor as ChatModelCallAdvisor
from ostinato.advisors._model_advisors import ChatModelStreamAdvisor as ChatModelStreamAdvisor
from ostinato.advisors._no_progress import NoProgressAction as NoProgressAction
from ostinato.advisors._order import advisors_inside_tool_loop as advisors_inside_tool_loop
from ostinato.advisors._order import check_tool_advisors as check_tool_advisors
from ostinato.advisors._tool_calling import ToolCallingAdvisor as ToolCallingAdvisor
from ostinato.advisors._tool_calling_builder import (
    ToolCallingAdvisorBuilder as ToolCallingAdvisorBuilder,
)
from ostinato.advisors._tool_calling_settings import (
    ToolCallingAdvisorSettings as ToolCallingAdvisorSettings,
)
from ostinato.advisors._tool_calling_settings import (
    ToolExecutionEligibilityChecker as ToolExecutionEligibilityChecker,
)
from ostinato.advisors._tool_calling_settings import (
    default_eligibility_checker as default_eligibility_checker,
)
from ostinato.advisors._usage_limits import UsageLimits as UsageLimits
from ostinato.context_keys import OUTPUT_FORMAT as OUTPUT_FORMAT
from ostinato.context_keys import SENT_OPTIONS as SENT_OPTIONS
from ostinato.context_keys import TOOL_LOOP_ROUND as TOOL_LOOP_ROUND

# PEP 562: imported on first use (``__all__`` and ``__getattr__`` only, ``[:2]``: dir()
# stays the default).
if TYPE_CHECKING:
    from ostinato.advisors._guard import Guard as Guard
    from ostinato.advisors._guard import GuardAction as GuardAction
    from ostinato.advisors._guard import GuardDecision as GuardDecision
    from ostinato.advisors._guard_advisor import DEFAULT_GUARD_RESPONSE as DEFAULT_GUARD_RESPONSE
    from ostinato.advisors._guard_advisor import GuardAdvisor as GuardAdvisor
    from ostinato.advisors._json_schema import validate_json_schema as validate_json_schema
    from ostinato.advisors._logger import SimpleLoggerAdvisor as SimpleLoggerAdvisor
    from ostinato.advisors._safeguard import DEFAULT_FAILURE_RESPONSE as DEFAULT_FAILURE_RESPONSE
    from ostinato.advisors._safeguard import SafeGuardAdvisor as SafeGuardAdvisor
    from ostinato.advisors._safeguard import SensitiveWordsGuard as SensitiveWordsGuard
    from ostinato.advisors._structured_output import (
        StructuredOutputValidationAdvisor as StructuredOutputValidationAdvisor,
    )
    from ostinato.advisors._structured_output import (
        StructuredOutputValidationAdvisorBuilder as StructuredOutputValidationAdvisorBuilder,
    )
else:
    __all__, __getattr__ = lazy_package(
        __name__,
        globals(),
        {
            "DEFAULT_FAILURE_RESPONSE": "ostinato.advisors._safeguard",
            "DEFAULT_GUARD_RESPONSE": "ostinato.advisors._guard_advisor",
            "Guard": "ostinato.advisors._guard",
            "GuardAction": "ostinato.advisors._guard",
            "GuardAdvisor": "ostinato.advisors._guard_advisor",
            "GuardDecision": "ostinato.advisors._guard",
            "SafeGuardAdvisor": "ostinato.advisors._safeguard",
            "SensitiveWordsGuard": "ostinato.advisors._safeguard",
            "SimpleLoggerAdvisor": "ostinato.advisors._logger",
            "StructuredOutputValidationAdvisor": "ostinato.advisors._structured_output",
            "StructuredOutputValidationAdvisorBuilder": "ostinato.advisors._structured_output",
            "validate_json_schema": "ostinato.advisors._json_schema",
        },
    )[:2]
