"""The adapter conformance kit, run against ``AnthropicChatModel``.

The canned replies below are written in the Messages API wire format, following the
recorded exchanges in ``tests/wire/anthropic`` (``message_start``, a ``ping`` after
the first block start, ``input_json_delta`` pieces whose first one is empty, spaces after
the JSON on ``data:`` lines, ``message_delta`` with the real output count,
``message_stop``). The in-stream ``error`` event and the ``refusal`` stop reason have no
recording; they follow Anthropic's documentation. The kit checks what the adapter makes
of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import CannedResponse, HttpxModelConformance, Scenario
from ostinato_anthropic import (
    AnthropicChatModel,
    AnthropicChatOptions,
    json_schema_output_config,
)

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


def sse(*events: Mapping[str, Any], stop: bool = True) -> str:
    """An event stream: each event named after its type, its JSON padded with spaces."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}   \n\n" for e in events)
    return body + ('event: message_stop\ndata: {"type":"message_stop"}\n\n' if stop else "")


class TestAnthropicConformance(HttpxModelConformance):
    model_class = AnthropicChatModel
    live_requires = "API_KEY"
    live_model_name = "claude-haiku-4-5"

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return AnthropicChatOptions(output_config=json_schema_output_config(schema))

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        body = {
            "type": "error",
            "error": {"type": ERROR_TYPES.get(status, "api_error"), "message": message},
            "request_id": "req_conformance",
        }
        return CannedResponse.json(body, status=status, headers=headers)

    # -- the scenarios, in the Messages API format -----------------------------------------

    def _usage(self, output_tokens: int | None = None) -> dict[str, Any]:
        exp = self.expectations
        return {
            "input_tokens": exp.prompt_tokens,
            "output_tokens": exp.completion_tokens if output_tokens is None else output_tokens,
        }

    def _message(self, content: list[dict[str, Any]], stop_reason: str) -> CannedResponse:
        exp = self.expectations
        return CannedResponse.json(
            {
                "id": exp.response_id,
                "type": "message",
                "role": "assistant",
                "model": exp.model,
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": self._usage(),
            }
        )

    def _start(self) -> dict[str, Any]:
        exp = self.expectations
        message = {
            "id": exp.response_id,
            "type": "message",
            "role": "assistant",
            "model": exp.model,
            "content": [],
            "stop_reason": None,
            "usage": self._usage(output_tokens=1),
        }
        return {"type": "message_start", "message": message}

    def _end(self, stop_reason: str) -> dict[str, Any]:
        return {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": self.expectations.completion_tokens},
        }

    def _text_stream(self, pieces: list[str], stop_reason: str) -> CannedResponse:
        events = [
            self._start(),
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {"type": "ping"},
            *(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                }
                for p in pieces
            ),
            {"type": "content_block_stop", "index": 0},
            self._end(stop_reason),
        ]
        return CannedResponse.text(sse(*events))

    @staticmethod
    def _tool_use(call: ToolCall) -> dict[str, Any]:
        return {
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": json.loads(call.arguments),
        }

    def _calls_stream(self, calls: list[ToolCall]) -> CannedResponse:
        events: list[dict[str, Any]] = [self._start()]
        for index, call in enumerate(calls):
            start = {**self._tool_use(call), "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            if index == 0:
                events.append({"type": "ping"})
            middle = len(call.arguments) // 2
            for piece in ("", call.arguments[:middle], call.arguments[middle:]):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
            events.append({"type": "content_block_stop", "index": index})
        events.append(self._end("tool_use"))
        return CannedResponse.text(sse(*events))

    def canned(self, scenario: Scenario) -> CannedResponse | None:
        exp = self.expectations
        calls = [exp.weather_call, exp.time_call]
        text = exp.text
        match scenario:
            case Scenario.TEXT:
                return self._message([{"type": "text", "text": text}], "end_turn")
            case Scenario.TEXT_STREAM:
                return self._text_stream([text[:10], text[10:27], text[27:]], "end_turn")
            case Scenario.TOOL_CALL:
                return self._message([self._tool_use(calls[0])], "tool_use")
            case Scenario.TOOL_CALL_STREAM:
                return self._calls_stream(calls[:1])
            case Scenario.PARALLEL_TOOL_CALLS:
                return self._message([self._tool_use(c) for c in calls], "tool_use")
            case Scenario.PARALLEL_TOOL_CALLS_STREAM:
                return self._calls_stream(calls)
            case Scenario.TOOL_RESULT_FOLLOWUP:
                return self._message([{"type": "text", "text": exp.followup_text}], "end_turn")
            case Scenario.LENGTH:
                return self._message([{"type": "text", "text": "The capital of"}], "max_tokens")
            case Scenario.LENGTH_STREAM:
                return self._text_stream(["The capital", " of"], "max_tokens")
            case Scenario.STRUCTURED_OUTPUT:
                return self._message(
                    [{"type": "text", "text": json.dumps(exp.structured)}], "end_turn"
                )
            case Scenario.CONTENT_FILTER:
                return self._message([], "refusal")
            case Scenario.STREAM_ERROR_EVENT:
                error = {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": exp.error_message},
                }
                events = [
                    self._start(),
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "text", "text": ""},
                    },
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": "The capital"},
                    },
                    error,
                ]
                return CannedResponse.text(sse(*events, stop=False))
        return None  # pragma: no cover - every scenario is provided
