"""Recent conversations: what ``ostinato logs`` lists, for repositories that know it.

:class:`RecentConversationsRepository` is optional: a repository that records when each
conversation last changed offers :meth:`~RecentConversationsRepository.find_recent_conversations`;
for the others, :func:`recent_conversations` lists every conversation by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from ostinato.memory import ChatMemoryRepository

__all__ = ["ConversationSummary", "RecentConversationsRepository", "recent_conversations"]


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
