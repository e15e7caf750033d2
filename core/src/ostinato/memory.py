"""Conversation memory contracts. Implementations live in plugins (``ostinato-memory``).

``ChatMemory`` is what memory advisors talk to; ``ChatMemoryRepository`` is where a
memory keeps its messages (in memory, SQLite...). Both are async — that is what memory
advisors call. Their blocking faces (``get_sync``, ``save_all_sync``...) come with
:class:`ChatMemorySyncFaces` and :class:`ChatMemoryRepositorySyncFaces`, mixins an
implementation inherits (or overrides, when its work is blocking anyway). The
conversation id travels in the advisor context under :data:`CONVERSATION_ID` (set it
with ``AdvisorParams.conversation_id(...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ostinato.context_keys import CONVERSATION_ID
from ostinato.messages import Message

__all__ = [
    "CONVERSATION_ID",
    "ChatMemory",
    "ChatMemoryRepository",
    "ChatMemoryRepositorySyncFaces",
    "ChatMemorySyncFaces",
]


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


class ChatMemorySyncFaces:
    """Blocking faces of a :class:`ChatMemory`, for an implementation to inherit.

    Each runs the async method on ostinato's private event loop and waits, so it also
    works from code already inside a running event loop (from the loop's own thread, as
    in a tool ostinato runs, it raises :class:`~ostinato.errors.SyncFromLoopError`).
    """

    __slots__ = ()

    def add_sync(self: ChatMemory, conversation_id: str, messages: Sequence[Message]) -> None:
        """Blocking :meth:`ChatMemory.add`."""
        from ostinato.runtime import run_sync

        run_sync(self.add(conversation_id, messages), async_name="add")

    def get_sync(self: ChatMemory, conversation_id: str) -> list[Message]:
        """Blocking :meth:`ChatMemory.get`."""
        from ostinato.runtime import run_sync

        return run_sync(self.get(conversation_id), async_name="get")

    def clear_sync(self: ChatMemory, conversation_id: str) -> None:
        """Blocking :meth:`ChatMemory.clear`."""
        from ostinato.runtime import run_sync

        run_sync(self.clear(conversation_id), async_name="clear")


class ChatMemoryRepositorySyncFaces:
    """Blocking faces of a :class:`ChatMemoryRepository`, for an implementation to inherit
    (each runs the async method on ostinato's private loop, as :class:`ChatMemorySyncFaces`
    does). A repository whose work is blocking anyway (SQLite) overrides them."""

    __slots__ = ()

    def find_conversation_ids_sync(self: ChatMemoryRepository) -> list[str]:
        """Blocking :meth:`ChatMemoryRepository.find_conversation_ids`."""
        from ostinato.runtime import run_sync

        return run_sync(self.find_conversation_ids(), async_name="find_conversation_ids")

    def find_by_conversation_id_sync(
        self: ChatMemoryRepository, conversation_id: str
    ) -> list[Message]:
        """Blocking :meth:`ChatMemoryRepository.find_by_conversation_id`."""
        from ostinato.runtime import run_sync

        return run_sync(
            self.find_by_conversation_id(conversation_id), async_name="find_by_conversation_id"
        )

    def save_all_sync(
        self: ChatMemoryRepository, conversation_id: str, messages: Sequence[Message]
    ) -> None:
        """Blocking :meth:`ChatMemoryRepository.save_all`."""
        from ostinato.runtime import run_sync

        run_sync(self.save_all(conversation_id, messages), async_name="save_all")

    def delete_by_conversation_id_sync(self: ChatMemoryRepository, conversation_id: str) -> None:
        """Blocking :meth:`ChatMemoryRepository.delete_by_conversation_id`."""
        from ostinato.runtime import run_sync

        run_sync(
            self.delete_by_conversation_id(conversation_id),
            async_name="delete_by_conversation_id",
        )
