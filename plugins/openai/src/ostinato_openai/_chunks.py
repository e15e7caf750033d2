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

from collections.abc import Mapping
from typing import Any

from ostinato.errors import MalformedResponseError
from ostinato.http import StreamParserBase, model_error
from ostinato.messages import REASONING, AssistantMessage, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    Usage,
)
from ostinato.transport import ServerSentEvent, excerpt
from ostinato_openai._errors import read_error
from ostinato_openai._normalise import (
    FINISH_REASON_RAW,
    JSON_OBJECT,
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

__all__ = ["ChunkParser"]

_DONE = "[DONE]"
_NO_GENERATION_METADATA = ChatGenerationMetadata()
# The frozen empty mapping every message starts with: passed on, it is kept as it is.
_NO_METADATA = AssistantMessage().metadata


class ChunkParser(StreamParserBase):
    """Turns the events of one stream into partial responses; tracks ``[DONE]``."""

    __slots__ = (
        "_answered",
        "_finished",
        "_ids",
        "_logprobs",
        "_metadata",
        "_metadata_key",
        "_refusal",
        "_response_id",
        "_tail_sent",
        "url",
    )

    def _start(self) -> None:
        #: The endpoint, named when the stream ends without any choice.
        self.url = ""
        self._answered = False
        self._ids: dict[int, str] = {}
        self._refusal: list[str] = []
        self._logprobs: list[Any] = []
        self._response_id = ""
        self._finished = False
        self._tail_sent = False
        self._metadata_key: tuple[Any, ...] | None = None
        self._metadata = ChatResponseMetadata()

    def event(self, event: ServerSentEvent) -> ChatResponse | None:
        """The partial response ``event`` carries (``None`` when it carries nothing)."""
        data = event.data.strip()
        if data == _DONE:
            self.done = True
            tail = self._tail()
            if tail is None and not self._answered:
                # An empty reply: reported, never taken for an answer of no words.
                raise MalformedResponseError(
                    f"{self._provider}: the reply from {self.url} holds no answer (no "
                    "choice): the stream ended before any choice",
                    provider=self._provider,
                )
            return tail
        payload = self._event_object(data)
        if not isinstance(payload, JSON_OBJECT):
            raise MalformedResponseError(
                f"{self._provider}: a stream event is not a JSON object: "
                f"{excerpt(data, self._secret)}",
                provider=self._provider,
            )
        error = payload.get("error")
        if event.event == "error" or error:
            if self._finished and event.event != "error":
                return self.chunk(payload, error=error)
            report = read_error(payload, None, {}, None)
            raise model_error(report, provider=self._provider, secret=self._secret)
        return self.chunk(payload)

    def chunk(self, payload: Mapping[str, Any], *, error: Any = None) -> ChatResponse | None:
        """The partial response of one parsed chunk."""
        response_id = payload.get("id")
        if isinstance(response_id, str) and response_id:
            self._response_id = response_id
        generation = self._generation(payload.get("choices"))
        usage = usage_payload(payload) if "usage" in payload or "x_groq" in payload else None
        if generation is None and usage is None and error is None:
            return None
        if generation is None:
            generations: tuple[Generation, ...] = ()
        else:
            generations = (generation,)
            self._answered = True
        if usage is None and error is None:
            # Most chunks of a stream carry the same metadata: build it once per stream
            # (it is immutable), not once per chunk.
            get = payload.get
            key = (
                self._response_id,
                get("model"),
                get("created"),
                get("system_fingerprint"),
                get("service_tier"),
                get("provider"),
            )
            if key != self._metadata_key:
                self._metadata_key = key
                self._metadata = self._response_metadata(payload, None, None)
            return ChatResponse(generations, self._metadata)
        return ChatResponse(generations, self._response_metadata(payload, usage, error))

    def _response_metadata(
        self, payload: Mapping[str, Any], usage: Mapping[str, Any] | None, error: Any
    ) -> ChatResponseMetadata:
        extras = response_extras(payload)
        extras["request_id"] = self._request_id
        if error is not None:
            extras["error"] = error
        return ChatResponseMetadata(
            id=self._response_id,
            model=str(payload.get("model") or ""),
            usage=usage_from(usage) if usage is not None else Usage(),
            rate_limit=self._rate_limit,
            metadata=extras,
        )

    def _generation(self, choices: Any) -> Generation | None:
        if not isinstance(choices, list) or not choices:
            return None
        # Nearly every chunk has exactly one choice, of index 0: no search then.
        choice = choices[0]
        if len(choices) > 1 or type(choice) is not dict or choice.get("index", 0) not in (0, None):
            choice = next(
                (
                    c
                    for c in choices
                    if isinstance(c, JSON_OBJECT) and c.get("index", 0) in (0, None)
                ),
                None,
            )
            if choice is None:
                return None
        delta = choice.get("delta")
        if not isinstance(delta, JSON_OBJECT):
            # Some servers put a whole message where the delta belongs.
            message = choice.get("message")
            delta = message if isinstance(message, JSON_OBJECT) else {}
        content = delta.get("content")
        if type(content) is str:
            text = content or None
        else:
            text = None if content is None else content_text(content)
        reasoning = (
            reasoning_text(delta) if "reasoning_content" in delta or "reasoning" in delta else None
        )
        raw_calls = delta.get("tool_calls")
        calls = self._calls(raw_calls) if raw_calls else ()
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refusal.append(refusal)
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, JSON_OBJECT) and isinstance(logprobs.get("content"), list):
            self._logprobs.extend(logprobs["content"])
        raw_reason = choice.get("finish_reason")
        if isinstance(raw_reason, str) and raw_reason:
            self._finished = True
            metadata: dict[str, Any] = {FINISH_REASON_RAW: raw_reason}
            native = choice.get("native_finish_reason")
            if isinstance(native, str) and native:
                metadata[NATIVE_FINISH_REASON] = native
            metadata.update(self._gathered())
            generation_metadata = ChatGenerationMetadata(
                finish_reason(raw_reason), metadata=metadata
            )
        elif text is None and reasoning is None and not calls:
            return None
        else:
            generation_metadata = _NO_GENERATION_METADATA  # shared: it is immutable
        return Generation(
            AssistantMessage(text, calls, {REASONING: reasoning} if reasoning else _NO_METADATA),
            generation_metadata,
        )

    def _calls(self, raw: Any) -> tuple[ToolCall, ...]:
        if not isinstance(raw, list):
            return ()
        calls = []
        for position, item in enumerate(raw):
            if not isinstance(item, JSON_OBJECT):
                continue
            index = item.get("index")
            if not isinstance(index, int):
                index = position
            function = item.get("function")
            if not isinstance(function, JSON_OBJECT):
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
