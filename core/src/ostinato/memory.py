"""Conversation memory contracts. Implementations live in plugins (``ostinato-memory``).

``ChatMemory`` is what memory advisors talk to; ``ChatMemoryRepository`` is where a
memory keeps its messages (in memory, SQLite...). Both are async; sync faces are offered
by implementations that want them. The conversation id travels in the advisor context
under :data:`CONVERSATION_ID` (set it with ``AdvisorParams.conversation_id(...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, runtime_checkable

from ostinato.messages import Message

__all__ = ["CONVERSATION_ID", "ChatMemory", "ChatMemoryRepository"]

#: Advisor-context key holding the conversation id (same value as the reference's).
CONVERSATION_ID: Final = "chat_memory_conversation_id"


@runtime_checkable
class ChatMemory(Protocol):
    """The messages remembered for each conversation (a window, a summary...)."""

    async def add(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Remember ``messages`` as the latest of ``conversation_id``."""
        ...

    async def get(self, conversation_id: str) -> list[Message]:
        """The messages to show the model for ``conversation_id``, oldest first."""
        ...

    async def clear(self, conversation_id: str) -> None:
        """Forget ``conversation_id``."""
        ...


@runtime_checkable
class ChatMemoryRepository(Protocol):
    """Storage of whole conversations, by id."""

    async def find_conversation_ids(self) -> list[str]:
        """Every stored conversation id."""
        ...

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """The stored messages of ``conversation_id`` (empty when unknown), oldest first."""
        ...

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the stored messages of ``conversation_id`` with ``messages``."""
        ...

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Remove ``conversation_id`` and its messages."""
        ...
