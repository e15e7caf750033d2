"""Messages the repository conformance kit stores: every type with every field set
(:func:`~ostinato.testing.every_message_type`), whole turns, odd conversation ids.

Built fresh by functions (not module constants) so a repository that keeps references
cannot make two tests share state.
"""

from __future__ import annotations

from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.testing import every_message_type

__all__ = ["ODD_CONVERSATION_IDS", "every_message_type", "turn"]

#: Conversation ids a store must keep apart and return exactly: separators of key
#: layouts, SQL wildcards and quotes, Unicode, whitespace inside, a long one.
ODD_CONVERSATION_IDS: tuple[str, ...] = (
    "a",
    "a:b",
    "a:messages",
    "conversation:a",
    "{a}",
    "50%_off",
    'it\'s "quoted"; DROP TABLE x; --',
    "path/with\\slashes",
    "ünïcødé 会話 🎵",
    "tab\tand space",
    "*",
    "x" * 512,
)


def turn(label: str) -> list[Message]:
    """One whole turn: a user message and its answer, both naming ``label``."""
    return [UserMessage(f"question {label}"), AssistantMessage(f"answer {label}")]
