"""Streamed ``chat.completion.chunk`` events as partial :class:`ChatResponse` s.

One parser per stream. It follows the first choice only, emits text and reasoning
deltas as they come, tool-call fragments with their ``index`` (the first fragment of each
call carries its id, made up when the server sent none; the
:class:`~ostinato.model.MessageAggregator` merges them), and usage wherever it arrives
(a usage-only chunk with empty ``choices``, the finish chunk, or Groq's ``x_groq``).
Refusal pieces and log probabilities are gathered and emitted whole with the finish
reason, so that the aggregate equals what ``call()`` parses from the same exchange.

An error inside the stream (an ``event: error`` frame, or a chunk carrying ``error``)
raises the typed error, unless the choice had already finished: then it is kept in the
response metadata under ``error`` (OpenRouter reports "Token limit reached" after a
``length`` finish).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.errors import MalformedResponseError
from ostinato.messages import REASONING, AssistantMessage, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    Usage,
)
from ostinato_openai._errors import error_from_payload
from ostinato_openai._normalise import (
    FINISH_REASON_RAW,
    NATIVE_FINISH_REASON,
    REFUSAL,
    arguments_text,
    content_text,
    finish_reason,
    generated_call_id,
    reasoning_text,
    response_extras,
    usage_from,
    usage_payload,
)
from ostinato_openai._sse import ServerSentEvent

__all__ = ["ChunkParser"]

_DONE = "[DONE]"


class ChunkParser:
    """Turns the events of one stream into partial responses; tracks ``[DONE]``."""

    __slots__ = (
        "_finished",
        "_ids",
        "_logprobs",
        "_provider",
        "_rate_limit",
        "_refusal",
        "_request_id",
        "_response_id",
        "_secret",
        "_tail_sent",
        "done",
    )

    def __init__(
        self,
        *,
        provider: str,
        rate_limit: Mapping[str, Any],
        secret: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self._provider = provider
        self._request_id = request_id
        # Frozen once here rather than once per chunk.
        self._rate_limit = ChatResponseMetadata(rate_limit=rate_limit).rate_limit
        self._secret = secret
        self._ids: dict[int, str] = {}
        self._refusal: list[str] = []
        self._logprobs: list[Any] = []
        self._response_id = ""
        self._finished = False
        self._tail_sent = False
        #: Whether ``[DONE]`` arrived.
        self.done = False

    def event(self, event: ServerSentEvent) -> ChatResponse | None:
        """The partial response ``event`` carries (``None`` when it carries nothing)."""
        data = event.data.strip()
        if data == _DONE:
            self.done = True
            return self._tail()
        try:
            payload = json.loads(data)
        except ValueError:
            raise MalformedResponseError(
                f"{self._provider}: a stream event is not JSON: {data[:200]!r}",
                provider=self._provider,
            ) from None
        if not isinstance(payload, Mapping):
            raise MalformedResponseError(
                f"{self._provider}: a stream event is not a JSON object: {data[:200]!r}",
                provider=self._provider,
            )
        error = payload.get("error")
        if event.event == "error" or error:
            if self._finished and event.event != "error":
                return self.chunk(payload, error=error)
            raise error_from_payload(
                payload, status=None, provider=self._provider, secret=self._secret
            )
        return self.chunk(payload)

    def chunk(self, payload: Mapping[str, Any], *, error: Any = None) -> ChatResponse | None:
        """The partial response of one parsed chunk."""
        response_id = payload.get("id")
        if isinstance(response_id, str) and response_id:
            self._response_id = response_id
        generation = self._generation(payload.get("choices"))
        usage = usage_payload(payload)
        if generation is None and usage is None and error is None:
            return None
        extras = response_extras(payload)
        extras["request_id"] = self._request_id
        if error is not None:
            extras["error"] = error
        return ChatResponse(
            () if generation is None else (generation,),
            ChatResponseMetadata(
                id=self._response_id,
                model=str(payload.get("model") or ""),
                usage=usage_from(usage) if usage is not None else Usage(),
                rate_limit=self._rate_limit,
                metadata=extras,
            ),
        )

    def _generation(self, choices: Any) -> Generation | None:
        if not isinstance(choices, list):
            return None
        choice = next(
            (c for c in choices if isinstance(c, Mapping) and c.get("index", 0) in (0, None)),
            None,
        )
        if choice is None:
            return None
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            # Some servers put a whole message where the delta belongs.
            message = choice.get("message")
            delta = message if isinstance(message, Mapping) else {}
        text = content_text(delta.get("content"))
        reasoning = reasoning_text(delta)
        calls = self._calls(delta.get("tool_calls"))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refusal.append(refusal)
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, Mapping) and isinstance(logprobs.get("content"), list):
            self._logprobs.extend(logprobs["content"])
        raw_reason = choice.get("finish_reason")
        metadata: dict[str, Any] = {}
        if isinstance(raw_reason, str) and raw_reason:
            self._finished = True
            metadata[FINISH_REASON_RAW] = raw_reason
            native = choice.get("native_finish_reason")
            if isinstance(native, str) and native:
                metadata[NATIVE_FINISH_REASON] = native
            metadata.update(self._gathered())
        if text is None and reasoning is None and not calls and not metadata:
            return None
        return Generation(
            AssistantMessage(text, calls, {REASONING: reasoning} if reasoning else {}),
            ChatGenerationMetadata(finish_reason(raw_reason), metadata=metadata),
        )

    def _calls(self, raw: Any) -> tuple[ToolCall, ...]:
        if not isinstance(raw, list):
            return ()
        calls = []
        for position, item in enumerate(raw):
            if not isinstance(item, Mapping):
                continue
            index = item.get("index")
            if not isinstance(index, int):
                index = position
            function = item.get("function")
            if not isinstance(function, Mapping):
                function = {}
            call_id = item.get("id")
            if isinstance(call_id, str) and call_id:
                self._ids[index] = call_id
            elif index not in self._ids:
                call_id = self._ids[index] = generated_call_id(self._response_id, 0, index)
            else:
                call_id = ""
            calls.append(
                ToolCall(
                    call_id,
                    str(function.get("name") or ""),
                    arguments_text(function.get("arguments")),
                    str(item.get("type") or ""),
                    index,
                )
            )
        return tuple(calls)

    def _gathered(self) -> dict[str, Any]:
        self._tail_sent = True
        gathered: dict[str, Any] = {}
        if self._refusal:
            gathered[REFUSAL] = "".join(self._refusal)
        if self._logprobs:
            gathered["logprobs"] = {"content": list(self._logprobs)}
        return gathered

    def _tail(self) -> ChatResponse | None:
        """Refusal or log probabilities still held when no finish reason came."""
        if self._tail_sent:
            return None
        gathered = self._gathered()
        if not gathered:
            return None
        return ChatResponse(
            (Generation(AssistantMessage(None), ChatGenerationMetadata(metadata=gathered)),),
            ChatResponseMetadata(id=self._response_id, rate_limit=self._rate_limit),
        )
