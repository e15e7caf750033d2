"""Advisors: the chain that wraps every model call, and the tool loop that lives in it."""

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
from ostinato.advisors._json_schema import validate_json_schema
from ostinato.advisors._logger import SimpleLoggerAdvisor
from ostinato.advisors._model_advisors import (
    OUTPUT_FORMAT,
    SENT_OPTIONS,
    TOOL_LOOP_ROUND,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
)
from ostinato.advisors._structured_output import (
    StructuredOutputValidationAdvisor,
    StructuredOutputValidationAdvisorBuilder,
)
from ostinato.advisors._tool_calling import (
    ToolCallingAdvisor,
    ToolCallingAdvisorBuilder,
    ToolExecutionEligibilityChecker,
    default_eligibility_checker,
)

__all__ = [
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
    "MemoryAdvisor",
    "Ordered",
    "SimpleLoggerAdvisor",
    "StreamAdvisor",
    "StructuredOutputValidationAdvisor",
    "StructuredOutputValidationAdvisorBuilder",
    "ToolAdvisor",
    "ToolCallingAdvisor",
    "ToolCallingAdvisorBuilder",
    "ToolExecutionEligibilityChecker",
    "default_eligibility_checker",
    "validate_json_schema",
]
