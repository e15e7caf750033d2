"""``InMemoryChatMemoryRepository``: conversations in a dict, for tests and single processes.

Nothing survives the process. Safe to share between threads and event loops (one lock
around the dict); reads return copies, so callers may change what they get.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato.messages import Message
from ostinato_memory._repository import ConversationChange
from ostinato_memory._validation import check_conversation_id, check_messages

if TYPE_CHECKING:
    from ostinato_memory._session_base import InMemorySessionLog

__all__ = ["InMemoryChatMemoryRepository"]


class InMemoryChatMemoryRepository:
    """A :class:`~ostinato.memory.ChatMemoryRepository` keeping conversations in memory.

    Every method has a blocking twin with the suffix ``_sync`` (``save_all_sync``...),
    which runs directly on the calling thread: the operations never wait on anything but
    a short lock. Saving an empty list removes the conversation.
    """

    __slots__ = ("_conversations", "_lock")

    def __init__(self) -> None:
        self._conversations: dict[str, tuple[Message, ...]] = {}
        self._lock = threading.Lock()

    # -- blocking faces ---------------------------------------------------------------

    def find_conversation_ids_sync(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""
        with self._lock:
            return sorted(self._conversations)

    def find_by_conversation_id_sync(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        check_conversation_id(conversation_id)
        with self._lock:
            return list(self._conversations.get(conversation_id, ()))

    def save_all_sync(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` (an empty list removes it)."""
        check_conversation_id(conversation_id)
        checked = check_messages(messages)
        with self._lock:
            self._store(conversation_id, checked)

    def delete_by_conversation_id_sync(self, conversation_id: str) -> None:
        """Forget ``conversation_id`` (nothing happens when it is unknown)."""
        check_conversation_id(conversation_id)
        with self._lock:
            self._conversations.pop(conversation_id, None)

    def update_sync(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` atomically and return it."""
        check_conversation_id(conversation_id)
        with self._lock:
            new = check_messages(change(list(self._conversations.get(conversation_id, ()))))
            self._store(conversation_id, new)
            return new

    def _store(self, conversation_id: str, messages: Sequence[Message]) -> None:
        if messages:
            self._conversations[conversation_id] = tuple(messages)
        else:
            self._conversations.pop(conversation_id, None)

    # -- async faces (the ChatMemoryRepository protocol) --------------------------------

    async def find_conversation_ids(self) -> list[str]:
        """Every conversation id holding at least one message, sorted."""
        return self.find_conversation_ids_sync()

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """The messages of ``conversation_id``, oldest first (empty when unknown)."""
        return self.find_by_conversation_id_sync(conversation_id)

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the messages of ``conversation_id`` (an empty list removes it)."""
        self.save_all_sync(conversation_id, messages)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Forget ``conversation_id``."""
        self.delete_by_conversation_id_sync(conversation_id)

    async def update(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored)`` for ``conversation_id`` atomically and return it."""
        return self.update_sync(conversation_id, change)

    def session_log(self) -> InMemorySessionLog:
        """A new, empty session log in memory (nothing is shared with this repository)."""
        from ostinato_memory._session_base import InMemorySessionLog

        return InMemorySessionLog()

    def __repr__(self) -> str:
        with self._lock:
            return f"InMemoryChatMemoryRepository({len(self._conversations)} conversations)"
