"""A conversation as the Messages API wants it: top-level ``system`` and alternating turns.

* System messages, wherever they are, become the top-level ``system`` text blocks.
* A user message is one ``user`` turn of content blocks: its text, then its media
  (images and PDFs, inline or by URL).
* An assistant message is one ``assistant`` turn: its thinking blocks first (sent back
  only with their signature, which the API checks), then its text, then one ``tool_use``
  block per tool call with the arguments as an ``input`` object.
* A tool response message becomes ``tool_result`` blocks in a ``user`` turn.
* Consecutive turns of one role are merged into one, as the API requires (so the results
  of one batch, or a tool result followed by the user's next words, share a turn).

A message whose metadata has ``cache_control`` ends with a prompt-caching breakpoint.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import MessageEncoder, Payload, arguments_object, plain
from ostinato.messages import (
    REASONING,
    REASONING_SIGNATURE,
    AssistantMessage,
    Media,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato_anthropic._normalise import THINKING_BLOCKS
from ostinato_anthropic._options import CACHE_CONTROL

__all__ = [
    "AnthropicMessages",
    "cache_control",
    "merged_turns",
    "thinking_blocks",
]


def cache_control(marker: Any = True, ttl: str | None = None) -> dict[str, Any]:
    """The ``cache_control`` of a breakpoint: ``marker`` itself when it is a mapping,
    else an ephemeral one (with ``ttl`` when given)."""
    if isinstance(marker, Mapping):
        return plain(marker)  # type: ignore[no-any-return]
    control: dict[str, Any] = {"type": "ephemeral"}
    if ttl:
        control["ttl"] = ttl
    return control


def _media(media: Media) -> dict[str, Any]:
    mime = media.mime_type.lower()
    if mime.startswith("image/"):
        kind = "image"
    elif mime == "application/pdf":
        kind = "document"
    else:
        raise ConfigurationError(
            f"{media!r}: the Messages API takes images and PDFs; send {media.mime_type} "
            "content as text instead"
        )
    if media.url is not None:
        return {"type": kind, "source": {"type": "url", "url": media.url}}
    data = base64.b64encode(media.data or b"").decode("ascii")
    return {"type": kind, "source": {"type": "base64", "media_type": mime, "data": data}}


def thinking_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    """The thinking blocks to send back for ``message`` (none without a signature)."""
    kept = message.metadata.get(THINKING_BLOCKS)
    if isinstance(kept, list | tuple) and kept:
        return [plain(block) for block in kept if isinstance(block, Mapping)]
    reasoning = message.metadata.get(REASONING)
    signature = message.metadata.get(REASONING_SIGNATURE)
    if isinstance(reasoning, str) and isinstance(signature, str) and signature:
        return [{"type": "thinking", "thinking": reasoning, "signature": signature}]
    return []


class AnthropicMessages(MessageEncoder):
    """Messages as Messages API turns, one per message; system messages are kept aside.

    One encoder serves one request: after :meth:`~ostinato.http.MessageEncoder.encode`,
    :attr:`system_blocks` holds the top-level ``system`` blocks (one text block per system
    message, in order). A message whose metadata has ``cache_control`` ends with a
    caching breakpoint; ``ttl`` is the breakpoints' time to live.
    """

    __slots__ = ("system_blocks", "ttl")

    def __init__(self, *, ttl: str | None = None) -> None:
        self.ttl = ttl
        self.system_blocks: list[Payload] = []

    def _turn(self, role: str, blocks: list[Payload], metadata: Mapping[str, Any]) -> list[Payload]:
        if not blocks:
            return []  # an empty assistant message: the API rejects empty turns
        marker = metadata.get(CACHE_CONTROL)
        if marker:
            blocks[-1]["cache_control"] = cache_control(marker, self.ttl)
        return [{"role": role, "content": blocks}]

    def user(self, message: UserMessage) -> list[Payload]:
        """A ``user`` turn: its text block, then its media."""
        blocks: list[Payload] = (
            [{"type": "text", "text": message.text}] if message.text or not message.media else []
        )
        blocks += [_media(m) for m in message.media]
        return self._turn("user", blocks, message.metadata)

    def assistant(self, message: AssistantMessage) -> list[Payload]:
        """An ``assistant`` turn: thinking blocks, text, then one ``tool_use`` per call."""
        blocks = thinking_blocks(message)
        if message.text:
            blocks.append({"type": "text", "text": message.text})
        blocks.extend(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": arguments_object(call.arguments),
            }
            for call in message.tool_calls
        )
        return self._turn("assistant", blocks, message.metadata)

    def tool_responses(self, message: ToolResponseMessage) -> list[Payload]:
        """A ``user`` turn of ``tool_result`` blocks."""
        results = []
        for response in message.responses:
            result: Payload = {"type": "tool_result", "tool_use_id": response.id}
            if response.response_data:
                result["content"] = [{"type": "text", "text": response.response_data}]
            results.append(result)
        return self._turn("user", results, message.metadata)

    def system(self, message: SystemMessage) -> list[Payload]:
        """No turn: a text block of the top-level ``system``."""
        block: Payload = {"type": "text", "text": message.text}
        marker = message.metadata.get(CACHE_CONTROL)
        if marker:
            block["cache_control"] = cache_control(marker, self.ttl)
        self.system_blocks.append(block)
        return []


def merged_turns(
    turns: Iterable[Payload], *, cache_last: bool = False, ttl: str | None = None
) -> list[Payload]:
    """The ``messages`` array: consecutive turns of one role merged, as the API requires.

    ``cache_last`` puts a caching breakpoint after the last block of the last turn.
    """
    merged: list[Payload] = []
    for turn in turns:
        if merged and merged[-1]["role"] == turn["role"]:
            merged[-1]["content"].extend(turn["content"])
        else:
            merged.append(turn)
    if cache_last and merged:
        merged[-1]["content"][-1]["cache_control"] = cache_control(True, ttl)
    return merged
