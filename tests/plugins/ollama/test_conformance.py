"""The adapter conformance kit, run against ``OllamaChatModel``.

The canned replies below are written in Ollama's native format, following the recorded
exchanges in ``tests/wire/ollama`` (one JSON object per line, ``done: true`` with
``done_reason`` and the counters last, tool-call arguments as objects, ``id`` and
``function.index`` as newer servers send them). Ollama's replies have no response id
(``Expectations(response_id="")``) and no content filter; its in-stream errors carry no
status, so the kit's 400 error-event scenario does not apply (the adapter's own tests
cover error lines). Tool calls stream whole, as Ollama sends them: arguments are objects,
never fragments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import (
    CannedResponse,
    Expectations,
    HttpxModelConformance,
    Scenario,
)
from ostinato_ollama import OllamaChatModel, OllamaChatOptions

CREATED = "2026-01-01T00:00:00.000000Z"
THINKING = "The user wants the tools."


def ndjson(*objects: Mapping[str, Any]) -> CannedResponse:
    """A stream as a local server sends it."""
    body = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)
    return CannedResponse.text(body, content_type="application/x-ndjson")


class TestOllamaConformance(HttpxModelConformance):
    expectations: ClassVar[Expectations] = Expectations(response_id="")
    model_class = OllamaChatModel
    base_url = "http://conformance.test:11434"
    live_model_name = "qwen3"

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return OllamaChatOptions(format=schema)

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        return CannedResponse.json({"error": message}, status=status, headers=headers)

    # -- the scenarios, in Ollama's format ------------------------------------------------

    def _object(self, message: Mapping[str, Any], *, done: bool = False) -> dict[str, Any]:
        return {
            "model": self.expectations.model,
            "created_at": CREATED,
            "message": {"role": "assistant", **message},
            "done": done,
        }

    def _final(self, reason: str, message: Mapping[str, Any] | None = None) -> dict[str, Any]:
        exp = self.expectations
        return {
            **self._object(message or {"content": ""}, done=True),
            "done_reason": reason,
            "total_duration": 123456789,
            "prompt_eval_count": exp.prompt_tokens,
            "eval_count": exp.completion_tokens,
        }

    @staticmethod
    def _calls(calls: list[ToolCall]) -> list[dict[str, Any]]:
        return [
            {
                "id": call.id,
                "function": {
                    "index": index,
                    "name": call.name,
                    "arguments": json.loads(call.arguments),
                },
            }
            for index, call in enumerate(calls)
        ]

    def _calls_message(self, calls: list[ToolCall]) -> dict[str, Any]:
        # As ollama.com's recorded tool call (006): thinking beside the calls.
        return {"content": "", "thinking": THINKING, "tool_calls": self._calls(calls)}

    def _whole(self, message: Mapping[str, Any], reason: str = "stop") -> CannedResponse:
        return CannedResponse.json(self._final(reason, message))

    def _text_stream(self, pieces: list[str], reason: str) -> CannedResponse:
        objects = [self._object({"content": p}) for p in pieces]
        return ndjson(*objects, self._final(reason))

    def _calls_stream(self, calls: list[ToolCall]) -> CannedResponse:
        return ndjson(
            self._object({"content": "", "thinking": THINKING}),
            self._object({"content": "", "tool_calls": self._calls(calls)}),
            self._final("stop"),  # Ollama says "stop" after tool calls too
        )

    def canned(self, scenario: Scenario) -> CannedResponse | None:
        exp = self.expectations
        calls = [exp.weather_call, exp.time_call]
        text = exp.text
        match scenario:
            case Scenario.TEXT:
                return self._whole({"content": text})
            case Scenario.TEXT_STREAM:
                return self._text_stream([text[:10], text[10:27], text[27:]], "stop")
            case Scenario.TOOL_CALL:
                return self._whole(self._calls_message(calls[:1]))
            case Scenario.TOOL_CALL_STREAM:
                return self._calls_stream(calls[:1])
            case Scenario.PARALLEL_TOOL_CALLS:
                return self._whole(self._calls_message(calls))
            case Scenario.PARALLEL_TOOL_CALLS_STREAM:
                return self._calls_stream(calls)
            case Scenario.TOOL_RESULT_FOLLOWUP:
                return self._whole({"content": exp.followup_text})
            case Scenario.LENGTH:
                return self._whole({"content": "The capital of"}, "length")
            case Scenario.LENGTH_STREAM:
                return self._text_stream(["The capital", " of"], "length")
            case Scenario.STRUCTURED_OUTPUT:
                return self._whole({"content": json.dumps(exp.structured)})
        return None  # no content filter; in-stream errors carry no status
