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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import CannedResponse, HttpxModelConformance, ReplyShapes
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


class TestAnthropicConformance(ReplyShapes, HttpxModelConformance):
    model_class = AnthropicChatModel
    live_requires = "API_KEY"
    live_model_name = "claude-haiku-4-5"
    finish_reasons: ClassVar[Mapping[str, str | None]] = {
        "stop": "end_turn",
        "length": "max_tokens",
        "tool_calls": "tool_use",
        "content_filter": "refusal",
    }

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return AnthropicChatOptions(output_config=json_schema_output_config(schema))

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        body = {
            "type": "error",
            "error": {"type": ERROR_TYPES.get(status, "api_error"), "message": message},
            "request_id": "req_conformance",
        }
        return CannedResponse.json(body, status=status, headers=headers)

    # -- the reply shapes, in the Messages API format -------------------------------------

    def _usage(self, output_tokens: int | None = None) -> dict[str, Any]:
        exp = self.expectations
        return {
            "input_tokens": exp.prompt_tokens,
            "output_tokens": exp.completion_tokens if output_tokens is None else output_tokens,
        }

    def whole_reply(
        self, text: str | None, calls: Sequence[ToolCall], finish: str
    ) -> CannedResponse:
        exp = self.expectations
        text_block = [] if text is None else [{"type": "text", "text": text}]
        return CannedResponse.json(
            {
                "id": exp.response_id,
                "type": "message",
                "role": "assistant",
                "model": exp.model,
                "content": [*text_block, *(self._tool_use(c) for c in calls)],
                "stop_reason": finish,
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

    def text_stream(self, pieces: Sequence[str], finish: str) -> CannedResponse:
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
            self._end(finish),
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

    def calls_stream(self, calls: Sequence[ToolCall], finish: str) -> CannedResponse:
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
        events.append(self._end(finish))
        return CannedResponse.text(sse(*events))

    def error_event(self) -> CannedResponse:
        error = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": self.expectations.error_message},
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
