"""Recent conversations and when messages were stored: what ``ostinato logs`` shows, for
repositories that know it.

Both protocols are optional. A repository that records when each conversation last
changed offers :meth:`~RecentConversationsRepository.find_recent_conversations`; for the
others, :func:`recent_conversations` lists every conversation by id. One that records
when each message was stored offers
:meth:`~StoredMessagesRepository.find_stored_messages`; for the others,
:func:`stored_messages` gives the messages without times.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from ostinato.memory import ChatMemoryRepository
from ostinato.messages import Message

__all__ = [
    "ConversationSummary",
    "RecentConversationsRepository",
    "StoredMessage",
    "StoredMessagesRepository",
    "recent_conversations",
    "stored_messages",
]


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """One stored conversation, as a listing shows it.

    Attributes:
        conversation_id: its id.
        message_count: how many messages it holds.
        updated_at: when it last changed (``None`` where the repository does not record it).
    """

    conversation_id: str
    message_count: int
    updated_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One stored message, and when it was first stored.

    Attributes:
        message: the message.
        stored_at: when it was first stored (``None`` where the repository does not
            record it).
    """

    message: Message
    stored_at: datetime | None = None


@runtime_checkable
class RecentConversationsRepository(ChatMemoryRepository, Protocol):
    """A repository that knows when each conversation last changed."""

    async def find_recent_conversations(self, limit: int) -> list[ConversationSummary]:
        """At most ``limit`` conversations, the most recently changed first."""
        ...


async def recent_conversations(
    repository: ChatMemoryRepository, limit: int
) -> list[ConversationSummary]:
    """At most ``limit`` conversations of ``repository``: the most recently changed first
    when it records that, else by id."""
    if isinstance(repository, RecentConversationsRepository):
        return await repository.find_recent_conversations(limit)
    summaries = []
    for conversation_id in sorted(await repository.find_conversation_ids())[:limit]:
        messages = await repository.find_by_conversation_id(conversation_id)
        summaries.append(ConversationSummary(conversation_id, len(messages)))
    return summaries


@runtime_checkable
class StoredMessagesRepository(ChatMemoryRepository, Protocol):
    """A repository that knows when each message was stored."""

    async def find_stored_messages(self, conversation_id: str) -> list[StoredMessage]:
        """The messages of ``conversation_id``, oldest first, with their times."""
        ...


async def stored_messages(
    repository: ChatMemoryRepository, conversation_id: str
) -> list[StoredMessage]:
    """The messages of ``conversation_id`` in ``repository``, with when each was stored
    where it records that."""
    if isinstance(repository, StoredMessagesRepository):
        return await repository.find_stored_messages(conversation_id)
    return [StoredMessage(m) for m in await repository.find_by_conversation_id(conversation_id)]
