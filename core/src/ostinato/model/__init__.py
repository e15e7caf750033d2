"""Model-side types: the :class:`ChatModel` protocol, responses, usage, stream aggregation.

This package must not import tools, advisors or the client.
"""

from ostinato.model._accumulator import UsageAccumulator, accumulate_response_usage
from ostinato.model._aggregator import MessageAggregator
from ostinato.model._protocol import ChatModel, check_native_structured_output
from ostinato.model._response import (
    FINISH_REASON_RAW,
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    FinishReason,
    Generation,
)
from ostinato.model._usage import Usage, cumulative_usage

__all__ = [
    "FINISH_REASON_RAW",
    "ChatGenerationMetadata",
    "ChatModel",
    "ChatResponse",
    "ChatResponseMetadata",
    "FinishReason",
    "Generation",
    "MessageAggregator",
    "Usage",
    "UsageAccumulator",
    "accumulate_response_usage",
    "check_native_structured_output",
    "cumulative_usage",
]
