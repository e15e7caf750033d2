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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ostinato.messages import ToolCall
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance import (
    CannedResponse,
    Expectations,
    HttpxModelConformance,
    ReplyShapes,
)
from ostinato_ollama import OllamaChatModel, OllamaChatOptions

CREATED = "2026-01-01T00:00:00.000000Z"
THINKING = "The user wants the tools."


def ndjson(*objects: Mapping[str, Any]) -> CannedResponse:
    """A stream as a local server sends it."""
    body = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)
    return CannedResponse.text(body, content_type="application/x-ndjson")


class TestOllamaConformance(ReplyShapes, HttpxModelConformance):
    expectations: ClassVar[Expectations] = Expectations(response_id="")
    model_class = OllamaChatModel
    base_url = "http://conformance.test:11434"
    live_model_name = "qwen3"
    # Ollama says "stop" after tool calls too, and has no content filter.
    finish_reasons: ClassVar[Mapping[str, str | None]] = {
        "tool_calls": "stop",
        "content_filter": None,
    }

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        return OllamaChatOptions(format=schema)

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        return CannedResponse.json({"error": message}, status=status, headers=headers)

    # -- the reply shapes, in Ollama's format --------------------------------------------

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
    def _calls(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
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

    def whole_reply(
        self, text: str | None, calls: Sequence[ToolCall], finish: str
    ) -> CannedResponse:
        # A tool call as ollama.com's recorded one (006): thinking beside the calls.
        message = (
            {"content": "", "thinking": THINKING, "tool_calls": self._calls(calls)}
            if calls
            else {"content": text}
        )
        return CannedResponse.json(self._final(finish, message))

    def text_stream(self, pieces: Sequence[str], finish: str) -> CannedResponse:
        objects = [self._object({"content": p}) for p in pieces]
        return ndjson(*objects, self._final(finish))

    def calls_stream(self, calls: Sequence[ToolCall], finish: str) -> CannedResponse:
        return ndjson(
            self._object({"content": "", "thinking": THINKING}),
            self._object({"content": "", "tool_calls": self._calls(calls)}),
            self._final(finish),
        )
