"""How remembered messages meet a request: conversation id, de-duplication, system first.

Pure functions used by the memory advisors; they never read or write memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ostinato.memory import CONVERSATION_ID
from ostinato.messages import Message, SystemMessage
from ostinato_memory._errors import MissingConversationIdError

__all__ = ["merge_history", "resolve_conversation_id", "system_first"]


def resolve_conversation_id(
    context: Mapping[str, Any], default: str | None, advisor_name: str
) -> str:
    """The conversation of a request: the advisor context's
    :data:`~ostinato.memory.CONVERSATION_ID` entry, else ``default``.

    Raises:
        MissingConversationIdError: neither is set (or both are blank).
    """
    value = context.get(CONVERSATION_ID)
    if value is not None and str(value).strip():
        return str(value)
    if default is not None and default.strip():
        return default
    raise MissingConversationIdError(
        f"conversationId cannot be null: the advisor context has no {CONVERSATION_ID!r} "
        f"entry and {advisor_name} has no default_conversation_id\n"
        'fix: add .advisors(AdvisorParams.conversation_id("...")) to the request (or to the '
        "client's default_advisors), or build the advisor with default_conversation_id=... "
        "(OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID for auto-configured clients)"
    )


def _contains(messages: Sequence[Message], part: Sequence[Message]) -> bool:
    size = len(part)
    wanted = tuple(part)
    return any(tuple(messages[i : i + size]) == wanted for i in range(len(messages) - size + 1))


def _overlap(history: Sequence[Message], incoming: Sequence[Message]) -> int:
    # The longest tail of history that the request repeats at its start, leaving the
    # request at least one message of its own.
    for size in range(min(len(history), len(incoming) - 1), 0, -1):
        if tuple(history[-size:]) == tuple(incoming[:size]):
            return size
    return 0


def merge_history(history: Sequence[Message], messages: Sequence[Message]) -> list[Message]:
    """``history`` placed before a request's ``messages``, without repeating it.

    As in Spring AI: when ``history`` already appears, contiguously, in ``messages``
    (a tool loop forwarding the whole turn, a caller replaying the conversation), the
    messages are kept as they are. Beyond it: when the request starts (system messages
    aside) with the newest messages of ``history``, those are not repeated.
    """
    if not history:
        return list(messages)
    if _contains(messages, history):
        return list(messages)
    positions = [i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)]
    repeated = set(positions[: _overlap(history, [messages[i] for i in positions])])
    return [*history, *(m for i, m in enumerate(messages) if i not in repeated)]


def system_first(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with the first system message moved to the front (only that one)."""
    for i, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            if i == 0:
                return list(messages)
            return [message, *messages[:i], *messages[i + 1 :]]
    return list(messages)
