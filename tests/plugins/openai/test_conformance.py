"""The adapter conformance kit, run against ``OpenAIChatModel``.

The canned replies below are written in the Chat Completions wire format, following the
recorded exchanges in ``tests/wire/openai`` (role chunk, content deltas, finish chunk,
usage-only chunk, ``[DONE]``); the error event follows Groq's recorded ``event: error``
frame. The kit checks what the adapter makes of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import CannedResponse, HttpxModelConformance, ReplyShapes
from ostinato_openai import (
    OpenAIChatModel,
    OpenAIChatOptions,
    json_schema_response_format,
)


def sse(*events: Mapping[str, Any], done: bool = True) -> str:
    """A server-sent events body, with a keep-alive comment up front."""
    body = ": keep-alive\n\n" + "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    return body + ("data: [DONE]\n\n" if done else "")


class TestOpenAIConformance(ReplyShapes, HttpxModelConformance):
    model_class = OpenAIChatModel
    base_url = "https://conformance.test/v1"
    live_model_name = "gpt-4.1-mini"

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return OpenAIChatOptions(response_format=json_schema_response_format(schema))

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
        return CannedResponse.json({"error": error}, status=status, headers=headers)

    # -- the reply shapes, in the Chat Completions format --------------------------------

    def _usage(self) -> dict[str, Any]:
        exp = self.expectations
        return {
            "prompt_tokens": exp.prompt_tokens,
            "completion_tokens": exp.completion_tokens,
            "total_tokens": exp.total_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
        }

    def whole_reply(
        self, text: str | None, calls: Sequence[ToolCall], finish: str
    ) -> CannedResponse:
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        return CannedResponse.json(
            {
                "id": self.expectations.response_id,
                "object": "chat.completion",
                "created": 1780000000,
                "model": self.expectations.model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": self._usage(),
            }
        )

    def _chunk(self, delta: Mapping[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.expectations.response_id,
            "object": "chat.completion.chunk",
            "created": 1780000000,
            "model": self.expectations.model,
            "choices": [{"index": 0, "delta": dict(delta or {}), "finish_reason": finish}],
            "usage": None,
        }

    def _usage_chunk(self) -> dict[str, Any]:
        return {**self._chunk(None), "choices": [], "usage": self._usage()}

    def text_stream(self, pieces: Sequence[str], finish: str) -> CannedResponse:
        return CannedResponse.text(
            sse(
                self._chunk({"role": "assistant", "content": ""}),
                *(self._chunk({"content": p}) for p in pieces),
                self._chunk({}, finish),
                self._usage_chunk(),
            )
        )

    def calls_stream(self, calls: Sequence[ToolCall], finish: str) -> CannedResponse:
        chunks = [self._chunk({"role": "assistant", "content": None})]
        for index, call in enumerate(calls):
            head = {"index": index, "id": call.id, "type": "function"}
            chunks.append(
                self._chunk(
                    {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
                )
            )
            middle = len(call.arguments) // 2
            for piece in (call.arguments[:middle], call.arguments[middle:]):
                fragment = {"index": index, "function": {"arguments": piece}}
                chunks.append(self._chunk({"tool_calls": [fragment]}))
        chunks += [self._chunk({}, finish), self._usage_chunk()]
        return CannedResponse.text(sse(*chunks))

    def error_event(self) -> CannedResponse:
        error = {
            "error": {
                "message": self.expectations.error_message,
                "type": "invalid_request_error",
                "status_code": 400,
            }
        }
        body = sse(
            self._chunk({"role": "assistant", "content": ""}),
            self._chunk({"content": "The capital"}),
            done=False,
        )
        return CannedResponse.text(body + f"event: error\ndata: {json.dumps(error)}\n\n")
