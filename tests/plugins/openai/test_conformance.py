"""The adapter conformance kit, run against ``OpenAIChatModel``.

The canned replies below are written in the Chat Completions wire format, following the
recorded exchanges in ``tests/wire/openai`` (role chunk, content deltas, finish chunk,
usage-only chunk, ``[DONE]``); the error event follows Groq's recorded ``event: error``
frame. The kit checks what the adapter makes of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import CannedResponse, HttpxModelConformance, Scenario
from ostinato_openai import (
    OpenAIChatModel,
    OpenAIChatOptions,
    json_schema_response_format,
)


def sse(*events: Mapping[str, Any], done: bool = True) -> str:
    """A server-sent events body, with a keep-alive comment up front."""
    body = ": keep-alive\n\n" + "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    return body + ("data: [DONE]\n\n" if done else "")


class TestOpenAIConformance(HttpxModelConformance):
    model_class = OpenAIChatModel
    base_url = "https://conformance.test/v1"
    live_model_name = "gpt-4.1-mini"

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return OpenAIChatOptions(response_format=json_schema_response_format(schema))

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
        return CannedResponse.json({"error": error}, status=status, headers=headers)

    # -- the scenarios, in the Chat Completions format ------------------------------------

    def _usage(self) -> dict[str, Any]:
        exp = self.expectations
        return {
            "prompt_tokens": exp.prompt_tokens,
            "completion_tokens": exp.completion_tokens,
            "total_tokens": exp.total_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
        }

    def _completion(
        self,
        *,
        content: str | None,
        calls: list[ToolCall] = (),
        finish: str,  # type: ignore[assignment]
    ) -> CannedResponse:
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
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

    def _text_stream(self, pieces: list[str], finish: str) -> CannedResponse:
        return CannedResponse.text(
            sse(
                self._chunk({"role": "assistant", "content": ""}),
                *(self._chunk({"content": p}) for p in pieces),
                self._chunk({}, finish),
                self._usage_chunk(),
            )
        )

    def _calls_stream(self, calls: list[ToolCall]) -> CannedResponse:
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
        chunks += [self._chunk({}, "tool_calls"), self._usage_chunk()]
        return CannedResponse.text(sse(*chunks))

    def canned(self, scenario: Scenario) -> CannedResponse | None:
        exp = self.expectations
        calls = [exp.weather_call, exp.time_call]
        text = exp.text
        match scenario:
            case Scenario.TEXT:
                return self._completion(content=text, finish="stop")
            case Scenario.TEXT_STREAM:
                return self._text_stream([text[:10], text[10:27], text[27:]], "stop")
            case Scenario.TOOL_CALL:
                return self._completion(content=None, calls=calls[:1], finish="tool_calls")
            case Scenario.TOOL_CALL_STREAM:
                return self._calls_stream(calls[:1])
            case Scenario.PARALLEL_TOOL_CALLS:
                return self._completion(content=None, calls=calls, finish="tool_calls")
            case Scenario.PARALLEL_TOOL_CALLS_STREAM:
                return self._calls_stream(calls)
            case Scenario.TOOL_RESULT_FOLLOWUP:
                return self._completion(content=exp.followup_text, finish="stop")
            case Scenario.LENGTH:
                return self._completion(content="The capital of", finish="length")
            case Scenario.LENGTH_STREAM:
                return self._text_stream(["The capital", " of"], "length")
            case Scenario.STRUCTURED_OUTPUT:
                return self._completion(content=json.dumps(exp.structured), finish="stop")
            case Scenario.CONTENT_FILTER:
                return self._completion(content=None, finish="content_filter")
            case Scenario.STREAM_ERROR_EVENT:
                error = {
                    "error": {
                        "message": exp.error_message,
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
        return None  # pragma: no cover - every scenario is provided
