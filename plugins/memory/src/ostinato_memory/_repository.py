"""``UpdatableChatMemoryRepository``: a repository that can change one conversation atomically.

Core's :class:`~ostinato.memory.ChatMemoryRepository` reads and replaces whole
conversations. A memory that reads, edits and writes back (a window) loses a concurrent
writer's messages unless the read and the write are one step; repositories that can do
that offer :meth:`UpdatableChatMemoryRepository.update`, and
:class:`~ostinato_memory.MessageWindowChatMemory` uses it when it is there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ostinato.memory import ChatMemoryRepository, ChatMemoryRepositorySyncFaces
from ostinato.messages import Message

__all__ = ["ConversationChange", "RemoteStoreSyncFaces", "UpdatableChatMemoryRepository"]

ConversationChange = Callable[[list[Message]], Sequence[Message]]
"""A pure function from the stored messages of a conversation to the messages to store."""


@runtime_checkable
class UpdatableChatMemoryRepository(ChatMemoryRepository, Protocol):
    """A :class:`~ostinato.memory.ChatMemoryRepository` that can read-modify-write a
    conversation as one atomic step (no concurrent writer's change is lost)."""

    async def update(self, conversation_id: str, change: ConversationChange) -> list[Message]:
        """Store ``change(stored messages)`` for ``conversation_id`` in one atomic step and
        return it. ``change`` may run on another thread and must not block or await."""
        ...


class RemoteStoreSyncFaces(ChatMemoryRepositorySyncFaces):
    """Blocking faces of a repository whose work is network I/O (Postgres, Redis): core's
    four, plus ``update_sync`` and ``close``, each running the async method
    (:meth:`UpdatableChatMemoryRepository.update`, ``aclose``) on ostinato's private loop."""

    __slots__ = ()

    def update_sync(
        self: UpdatableChatMemoryRepository, conversation_id: str, change: ConversationChange
    ) -> list[Message]:
        """Blocking :meth:`UpdatableChatMemoryRepository.update`."""
        from ostinato.runtime import run_sync

        return run_sync(self.update(conversation_id, change), async_name="update")

    def close(self: _AsyncClosable) -> None:
        """Blocking ``aclose()``: close the store's connections."""
        from ostinato.runtime import run_sync

        run_sync(self.aclose(), async_name="aclose")


class _AsyncClosable(Protocol):
    async def aclose(self) -> None: ...
