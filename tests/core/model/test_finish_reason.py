"""FinishReason: one str enum for every finish reason, the loop's own included; each member
is its wire string."""

from __future__ import annotations

import json

import ostinato
from ostinato import FinishReason, ToolCallingAdvisor, ToolExecutionResult
from ostinato.errors import ToolCallLimitExceeded
from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation


def test_members_are_their_wire_strings():
    assert {r.name: str(r) for r in FinishReason} == {
        "STOP": "stop",
        "LENGTH": "length",
        "TOOL_CALLS": "tool_calls",
        "CONTENT_FILTER": "content_filter",
        "RETURN_DIRECT": "returnDirect",
        "TOOL_CALL_LIMIT_EXCEEDED": "toolCallLimitExceeded",
        "MAX_ITERATIONS_EXCEEDED": "maxIterationsExceeded",
        "USAGE_LIMIT_EXCEEDED": "usageLimitExceeded",
        "NO_PROGRESS": "noProgress",
    }
    assert FinishReason.STOP == "stop" and isinstance(FinishReason.STOP, str)
    assert FinishReason("toolCallLimitExceeded") is FinishReason.TOOL_CALL_LIMIT_EXCEEDED


def test_the_loop_constants_are_the_enum_members():
    assert ToolExecutionResult.FINISH_REASON is FinishReason.RETURN_DIRECT
    assert ToolCallingAdvisor.MAX_ITERATIONS_FINISH_REASON is FinishReason.MAX_ITERATIONS_EXCEEDED
    # errors imports nothing: its constant is the plain string of the member
    assert ToolCallLimitExceeded.FINISH_REASON == FinishReason.TOOL_CALL_LIMIT_EXCEEDED


def test_a_response_round_trips_through_json_with_the_plain_string():
    metadata = ChatGenerationMetadata(finish_reason=FinishReason.MAX_ITERATIONS_EXCEEDED)
    response = ChatResponse([Generation(AssistantMessage("capped"), metadata)])
    text = json.dumps(response.to_dict())
    assert '"finish_reason": "maxIterationsExceeded"' in text
    back = ChatResponse.from_dict(json.loads(text))
    assert back.result.metadata.finish_reason == FinishReason.MAX_ITERATIONS_EXCEEDED


def test_exported_at_top_level():
    assert ostinato.FinishReason is FinishReason
