"""Messages as Chat Completions ``messages``: one payload per message, one per tool response.

Messages map one to one, except a :class:`ToolResponseMessage`, which becomes one
``tool`` message per response. An assistant message without text is sent with
``content: ""`` (accepted everywhere, unlike ``null`` on some imitators); reasoning
metadata is not sent back. Media travel as content parts: images by URL or inline,
WAV and MP3 audio inline, other files inline as ``file`` parts.
"""

from __future__ import annotations

import base64
import functools
from typing import Any

from ostinato.errors import ConfigurationError
from ostinato.http import MessageEncoder, Payload
from ostinato.messages import (
    AssistantMessage,
    Media,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["ChatCompletionsMessages", "messages_encoder"]

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def _media_part(media: Media) -> dict[str, Any]:
    mime = media.mime_type.lower()
    if media.url is not None:
        if mime.startswith("image/"):
            return {"type": "image_url", "image_url": {"url": media.url}}
        raise ConfigurationError(
            f"{media!r}: Chat Completions takes only images by URL; send "
            f"{media.mime_type} content inline (Media(data=...))"
        )
    encoded = base64.b64encode(media.data or b"").decode("ascii")
    if mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}
    if mime in _AUDIO_FORMATS:
        return {
            "type": "input_audio",
            "input_audio": {"data": encoded, "format": _AUDIO_FORMATS[mime]},
        }
    file: dict[str, Any] = {"file_data": f"data:{mime};base64,{encoded}"}
    if media.name:
        file["filename"] = media.name
    return {"type": "file", "file": file}


class ChatCompletionsMessages(MessageEncoder):
    """Messages as Chat Completions messages; system messages take ``system_role``."""

    __slots__ = ("system_role",)

    def __init__(self, system_role: str = "system") -> None:
        self.system_role = system_role

    def user(self, message: UserMessage) -> list[Payload]:
        """``{"role": "user"}`` with the text, or text and media parts."""
        if not message.media:
            return [{"role": "user", "content": message.text}]
        parts: list[Payload] = []
        if message.text:
            parts.append({"type": "text", "text": message.text})
        parts.extend(_media_part(m) for m in message.media)
        return [{"role": "user", "content": parts}]

    def assistant(self, message: AssistantMessage) -> list[Payload]:
        """``{"role": "assistant"}`` with the text (``""`` for none) and tool calls."""
        payload: Payload = {"role": "assistant", "content": message.text or ""}
        if message.tool_calls:
            payload["tool_calls"] = [
                {
                    "id": call.id,
                    "type": call.type or "function",
                    "function": {"name": call.name, "arguments": call.arguments or "{}"},
                }
                for call in message.tool_calls
            ]
        return [payload]

    def tool_responses(self, message: ToolResponseMessage) -> list[Payload]:
        """One ``tool`` message per response."""
        return [
            {"role": "tool", "tool_call_id": r.id, "content": r.response_data}
            for r in message.responses
        ]

    def system(self, message: SystemMessage) -> list[Payload]:
        """A message of ``system_role`` (``system`` or ``developer``)."""
        return [{"role": self.system_role, "content": message.text}]


@functools.cache
def messages_encoder(system_role: str) -> ChatCompletionsMessages:
    """The encoder for ``system_role`` (one per role, so cached payloads are reused)."""
    return ChatCompletionsMessages(system_role)
