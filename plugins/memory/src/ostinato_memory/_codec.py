"""A message's stored form: its JSON (``Message.to_dict``) as text, for every repository.

Kept to text any store takes: a lone surrogate (which has no UTF-8 form) is written
escaped, and NUL characters are always escaped by JSON. Reading a row that is not a
message raises :class:`~ostinato_memory.ChatMemoryRepositoryError` naming where it is.
This module imports only ``json`` and core's messages.
"""

from __future__ import annotations

import json

from ostinato.messages import Message, message_from_dict
from ostinato_memory._errors import ChatMemoryRepositoryError

__all__ = ["decode_message", "encode_message"]


def encode_message(conversation_id: str, position: int, message: Message) -> str:
    """``message`` as JSON text.

    Raises:
        ChatMemoryRepositoryError: its metadata holds something JSON cannot carry.
    """
    try:
        text = json.dumps(message.to_dict(), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ChatMemoryRepositoryError(
            f"cannot store message {position} of conversation {conversation_id!r} "
            f"({message!r}): its JSON form failed: {exc}; nothing was changed\n"
            "fix: keep message metadata to JSON values (str, numbers, booleans, None, "
            "lists and dicts of them)"
        ) from exc
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Escaped (\ud800) it is valid JSON, valid UTF-8, and reads back the same.
            text = json.dumps(message.to_dict(), separators=(",", ":"))
    return text


def decode_message(conversation_id: str, position: int, text: str, where: str) -> Message:
    """The message stored as ``text`` (``where`` names the store, for the error).

    Raises:
        ChatMemoryRepositoryError: the text is not a stored message.
    """
    try:
        return message_from_dict(json.loads(text))
    except (TypeError, ValueError, KeyError) as exc:
        raise ChatMemoryRepositoryError(
            f"message {position} of conversation {conversation_id!r} in {where} cannot be "
            f"read: {exc}\n"
            "fix: delete the conversation (delete_by_conversation_id) or repair the record",
            path=where,
        ) from exc
