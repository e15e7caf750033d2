"""Ollama's reply objects as partial :class:`ChatResponse` s: one parser for calls and streams.

A streamed reply is one JSON object per line and a whole reply is a single such object,
so both go through :class:`ReplyParser` (and a call aggregates what it gives): that is
what makes ``call()`` and ``stream()`` agree. Content pieces become text, ``thinking``
pieces the message metadata's ``reasoning`` (never the text), tool calls complete calls
(arguments as JSON text; ids from the server or made up, stably); the object with
``done: true`` carries the finish reason (``tool_calls`` whenever the answer held tool
calls, whatever ``done_reason`` says) and the usage. A line ``{"error": "..."}`` raises
its typed error.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ostinato.errors import MalformedResponseError
from ostinato.http import model_error
from ostinato.messages import REASONING, AssistantMessage
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    Usage,
)
from ostinato.redaction import Redactor
from ostinato_ollama._errors import read_error
from ostinato_ollama._normalise import (
    CREATED_AT,
    FINISH_REASON_RAW,
    finish_reason,
    tool_call,
    usage_from,
)

__all__ = ["ReplyParser"]


class ReplyParser:
    """Turns the reply objects of one answer into partial responses; tracks ``done``."""

    __slots__ = ("_calls", "_model", "_provider", "_secret", "done")

    def __init__(
        self, *, provider: str, model: str | None = None, secret: str | Redactor | None = None
    ) -> None:
        self._provider = provider
        self._model = model
        self._secret = secret
        self._calls = 0
        #: Whether the object with ``done: true`` arrived.
        self.done = False

    def reply(self, obj: Any) -> ChatResponse | None:
        """The partial response one reply object carries (``None`` when it carries nothing).

        Raises:
            ModelError: the object is an error report.
            MalformedResponseError: the object is not a chat reply.
        """
        if not isinstance(obj, Mapping):
            shown = repr(obj)
            raise MalformedResponseError(
                f"{self._provider}: expected a chat reply object, got {shown[:300]}",
                provider=self._provider,
            )
        if "error" in obj:
            report = read_error(obj, None, {}, None, self._model)
            raise model_error(report, provider=self._provider, secret=self._secret)
        message = obj.get("message")
        if not isinstance(message, Mapping):
            message = {}
        content = message.get("content")
        text = content if isinstance(content, str) and content else None
        thinking = message.get("thinking")
        metadata = {REASONING: thinking} if isinstance(thinking, str) and thinking else {}
        calls = self._tool_calls(message.get("tool_calls"), obj)
        done = obj.get("done") is True
        if text is None and not metadata and not calls and not done:
            return None
        generation_metadata = ChatGenerationMetadata()
        usage = Usage()
        if done:
            self.done = True
            raw = obj.get("done_reason")
            generation_metadata = ChatGenerationMetadata(
                finish_reason(raw, has_tool_calls=self._calls > 0),
                metadata={FINISH_REASON_RAW: raw} if isinstance(raw, str) and raw else {},
            )
            usage = usage_from(obj)
        return ChatResponse(
            (Generation(AssistantMessage(text, calls, metadata), generation_metadata),),
            ChatResponseMetadata(
                model=str(obj.get("model") or ""),
                usage=usage,
                metadata={CREATED_AT: obj.get("created_at")},
            ),
        )

    #: The same as :meth:`reply`, under the name the model's read loop calls.
    event = reply

    def _tool_calls(self, raw: Any, obj: Mapping[str, Any]) -> tuple[Any, ...]:
        if not isinstance(raw, list) or not raw:
            return ()
        created = obj.get("created_at")
        seed = f"{obj.get('model')}:{created}" if created else uuid.uuid4().hex
        calls = []
        for item in raw:
            if isinstance(item, Mapping):
                calls.append(tool_call(item, position=self._calls, seed=seed))
                self._calls += 1
        return tuple(calls)
