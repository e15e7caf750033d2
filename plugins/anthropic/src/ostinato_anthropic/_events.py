"""Streamed Messages API events as partial :class:`ChatResponse` s.

One parser per stream. ``message_start`` gives the id, model and first usage (nothing is
emitted yet, so a failure right after it can still be retried); text deltas are emitted
as they come; a ``tool_use`` block becomes fragments carrying the block's index (its id
and name first, then each non-empty ``input_json_delta`` piece; a block that received
none, like a tool without parameters, ends with ``{}``), which
:class:`~ostinato.model.MessageAggregator` merges; thinking deltas go to the message
metadata's ``reasoning`` (never to the text) and each block's signature to
``reasoning_signature``; ``message_delta`` ends the answer with the stop reason and the
final usage (its ``output_tokens`` is the real count; ``message_start``'s is an early
figure). ``ping`` is ignored, ``message_stop`` ends the stream, and an ``error`` event
raises its typed error. Unknown events are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ostinato.errors import MalformedResponseError
from ostinato.http import StreamParserBase, model_error
from ostinato.messages import REASONING, REASONING_SIGNATURE, AssistantMessage, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    Usage,
)
from ostinato.transport import ServerSentEvent, excerpt
from ostinato_anthropic._errors import read_error
from ostinato_anthropic._normalise import REASONING_SEPARATOR, input_json, usage_from
from ostinato_anthropic._reply import generation_metadata, thinking_metadata

__all__ = ["EventParser"]


@dataclass(slots=True)
class _Block:
    kind: str
    start_input: Any = None
    received: bool = False
    thinking: list[str] = field(default_factory=list)
    signature: str = ""
    data: str = ""


class EventParser(StreamParserBase):
    """Turns the events of one stream into partial responses; tracks ``message_stop``."""

    __slots__ = (
        "_blocks",
        "_id",
        "_kept",
        "_metadata",
        "_model",
        "_reasoning_sent",
        "_usage",
    )

    def _start(self) -> None:
        self._metadata = ChatResponseMetadata(metadata={"request_id": self._request_id}).metadata
        self._id = ""
        self._model = ""
        self._usage: dict[str, Any] = {}
        self._blocks: dict[int, _Block] = {}
        self._kept: list[dict[str, Any]] = []
        self._reasoning_sent = False

    def event(self, event: ServerSentEvent) -> ChatResponse | None:
        """The partial response ``event`` carries (``None`` when it carries nothing)."""
        payload = self._event_object(event.data)
        if not isinstance(payload, Mapping):
            raise MalformedResponseError(
                f"{self._provider}: a stream event is not a JSON object: "
                f"{excerpt(event.data, self._secret)}",
                provider=self._provider,
            )
        kind = payload.get("type") or event.event
        if kind == "error" or event.event == "error":
            report = read_error(payload, None, {}, None)
            raise model_error(report, provider=self._provider, secret=self._secret)
        handler = _HANDLERS.get(str(kind))
        return handler(self, payload) if handler is not None else None

    # -- events ------------------------------------------------------------------------

    def _message_start(self, payload: Mapping[str, Any]) -> None:
        message = payload.get("message")
        if isinstance(message, Mapping):
            self._id = str(message.get("id") or "")
            self._model = str(message.get("model") or "")
            usage = message.get("usage")
            if isinstance(usage, Mapping):
                self._usage.update(usage)

    def _block_start(self, payload: Mapping[str, Any]) -> ChatResponse | None:
        index, block = payload.get("index"), payload.get("content_block")
        if not isinstance(index, int) or not isinstance(block, Mapping):
            return None
        kind = str(block.get("type") or "")
        state = self._blocks[index] = _Block(kind)
        if kind == "text" and block.get("text"):
            return self._chunk(AssistantMessage(str(block["text"])))
        if kind == "tool_use":
            state.start_input = block.get("input")
            call = ToolCall(
                str(block.get("id") or ""), str(block.get("name") or ""), "", index=index
            )
            return self._chunk(AssistantMessage(None, (call,)))
        if kind == "thinking" and block.get("thinking"):
            return self._thought(state, str(block["thinking"]))
        if kind == "redacted_thinking":
            state.data = str(block.get("data") or "")
        return None

    def _block_delta(self, payload: Mapping[str, Any]) -> ChatResponse | None:
        index, delta = payload.get("index"), payload.get("delta")
        state = self._blocks.get(index) if isinstance(index, int) else None
        if state is None or not isinstance(delta, Mapping):
            return None
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text") or "")
            return self._chunk(AssistantMessage(text)) if text else None
        if kind == "input_json_delta":
            piece = str(delta.get("partial_json") or "")
            if not piece:
                return None  # the first fragment is always empty
            state.received = True
            call = ToolCall("", "", piece, "", index)
            return self._chunk(AssistantMessage(None, (call,)))
        if kind == "thinking_delta":
            return self._thought(state, str(delta.get("thinking") or ""))
        if kind == "signature_delta":
            state.signature += str(delta.get("signature") or "")
        return None

    def _block_stop(self, payload: Mapping[str, Any]) -> ChatResponse | None:
        index = payload.get("index")
        state = self._blocks.get(index) if isinstance(index, int) else None
        if state is None:
            return None
        if state.kind == "tool_use" and not state.received:
            call = ToolCall("", "", input_json(state.start_input), "", index)
            return self._chunk(AssistantMessage(None, (call,)))
        if state.kind == "thinking":
            text = "".join(state.thinking)
            self._kept.append({"type": "thinking", "thinking": text, "signature": state.signature})
            if state.signature:
                metadata = {REASONING_SIGNATURE: state.signature}
                return self._chunk(AssistantMessage(None, (), metadata))
        if state.kind == "redacted_thinking":
            self._kept.append({"type": "redacted_thinking", "data": state.data})
        return None

    def _message_delta(self, payload: Mapping[str, Any]) -> ChatResponse:
        usage = payload.get("usage")
        if isinstance(usage, Mapping):
            self._usage.update(usage)
        delta = payload.get("delta")
        if not isinstance(delta, Mapping):
            delta = {}
        return self._chunk(
            AssistantMessage(None, (), thinking_metadata(self._kept)),
            generation_metadata(delta.get("stop_reason"), delta.get("stop_sequence")),
            usage_from(self._usage),
        )

    def _message_stop(self, _payload: Mapping[str, Any]) -> None:
        self.done = True

    # -- chunks ------------------------------------------------------------------------

    def _thought(self, state: _Block, text: str) -> ChatResponse | None:
        if not text:
            return None  # a thinking block ends with an empty delta
        state.thinking.append(text)
        if len(state.thinking) == 1 and self._reasoning_sent:
            text = REASONING_SEPARATOR + text  # the first words of a second thinking block
        self._reasoning_sent = True
        return self._chunk(AssistantMessage(None, (), {REASONING: text}))

    def _chunk(
        self,
        message: AssistantMessage,
        metadata: ChatGenerationMetadata | None = None,
        usage: Usage | None = None,
    ) -> ChatResponse:
        return ChatResponse(
            (Generation(message, metadata or ChatGenerationMetadata()),),
            ChatResponseMetadata(
                id=self._id,
                model=self._model,
                usage=usage or Usage(),
                rate_limit=self._rate_limit,
                metadata=self._metadata,
            ),
        )


_HANDLERS: dict[str, Any] = {
    "message_start": EventParser._message_start,
    "content_block_start": EventParser._block_start,
    "content_block_delta": EventParser._block_delta,
    "content_block_stop": EventParser._block_stop,
    "message_delta": EventParser._message_delta,
    "message_stop": EventParser._message_stop,
}
