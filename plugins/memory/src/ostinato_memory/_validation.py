"""Argument checks shared by the repositories and memories (messages worded as Spring AI's).

Repositories and memories reject a blank conversation id, a missing message list and
anything in it that is not a message, before touching what is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["check_conversation_id", "check_messages"]

_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolResponseMessage)


def check_conversation_id(conversation_id: Any) -> str:
    """Return ``conversation_id`` if it is a non-blank string of valid Unicode.

    Raises:
        ValueError: it is ``None``, not a string, blank, or holds a lone surrogate.
    """
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise ValueError(
            f"conversationId cannot be null or empty: got {conversation_id!r}; "
            "pass a non-blank string"
        )
    if not conversation_id.isascii():
        try:
            conversation_id.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"conversationId {conversation_id!r} holds a lone surrogate at position "
                f"{exc.start}, which no repository can store as text; pass valid Unicode "
                "(e.g. decode the id with errors='replace')"
            ) from None
    return conversation_id


def check_messages(messages: Any) -> list[Message]:
    """Return ``messages`` (a single message or a sequence of them) as a new list.

    Raises:
        ValueError: ``messages`` is ``None`` or holds ``None``.
        TypeError: it holds something that is not a message.
    """
    if messages is None:
        raise ValueError("messages cannot be null: pass a (possibly empty) list of messages")
    if isinstance(messages, _MESSAGE_TYPES):
        return [messages]
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise TypeError(
            f"messages must be a message or a sequence of messages, got {type(messages).__name__}"
        )
    checked: list[Message] = []
    for position, message in enumerate(messages):
        if message is None:
            raise ValueError(f"messages cannot contain null elements (position {position})")
        if not isinstance(message, _MESSAGE_TYPES):
            raise TypeError(
                f"messages[{position}] is a {type(message).__name__}, not a message "
                "(SystemMessage, UserMessage, AssistantMessage or ToolResponseMessage)"
            )
        checked.append(message)
    return checked
