"""``MessageWindowChatMemory``: the latest messages of each conversation, cut at turn boundaries.

The window keeps Spring AI's rules (at most ``max_messages``, cut at the start of a user
turn, system messages never cut; see :func:`apply_window`) and adds one: it is
*turn-atomic*. An assistant message asking for tools and the tool responses answering
it are kept or dropped together, so the window never holds a tool response without the
assistant message that asked for it, nor that message without its responses (except
while it is the newest message: its responses have not come yet).

:func:`apply_window` is the whole policy as a pure function; the class stores its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ostinato.memory import ChatMemoryRepository, ChatMemorySyncFaces
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato_memory._in_memory import InMemoryChatMemoryRepository
from ostinato_memory._repository import UpdatableChatMemoryRepository
from ostinato_memory._validation import check_conversation_id, check_messages

__all__ = ["MessageWindowChatMemory", "apply_window", "pair_tool_messages"]


def pair_tool_messages(messages: Sequence[Message]) -> list[Message]:
    """``messages`` without unpaired tool messages (system messages are transparent).

    A tool response is kept only right after the assistant message that asked for tools
    (or after another response of that batch); an assistant message with tool calls is
    kept only when tool responses follow it, or when it is the newest message (its
    responses are still to come).
    """
    positions = [i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)]
    dropped: set[int] = set()
    previous: str | None = None  # kind of the last kept non-system message
    for n, i in enumerate(positions):
        message = messages[i]
        if isinstance(message, ToolResponseMessage):
            if previous in ("call", "tool"):
                previous = "tool"
            else:
                dropped.add(i)
        elif isinstance(message, AssistantMessage) and message.has_tool_calls:
            following = messages[positions[n + 1]] if n + 1 < len(positions) else None
            if following is None or isinstance(following, ToolResponseMessage):
                previous = "call"
            else:
                dropped.add(i)
        else:
            previous = "other"
    return [m for i, m in enumerate(messages) if i not in dropped]


def apply_window(
    stored: Sequence[Message], new: Sequence[Message], max_messages: int
) -> list[Message]:
    """What a window of ``max_messages`` keeps after adding ``new`` to ``stored``.

    1. If ``new`` brings a system message not already stored, the stored system messages
       are dropped.
    2. Unpaired tool messages are dropped (:func:`pair_tool_messages`).
    3. Over the limit, the oldest non-system messages go, and the cut moves forward to
       the next user message, so the window starts a turn (and never splits a tool round
       from its turn). System messages are never cut. With no user message after the
       cut, every non-system message goes: the limit is an upper bound.
    """
    fresh_system = any(isinstance(m, SystemMessage) and m not in stored for m in new)
    kept = [m for m in stored if not isinstance(m, SystemMessage)] if fresh_system else stored
    combined = pair_tool_messages([*kept, *new])
    if len(combined) <= max_messages:
        return combined
    cut = len(combined) - max_messages
    positions = [i for i, m in enumerate(combined) if not isinstance(m, SystemMessage)]
    while cut < len(positions) and not isinstance(combined[positions[cut]], UserMessage):
        cut += 1
    removed = set(positions[:cut])
    return [m for i, m in enumerate(combined) if i not in removed]


class MessageWindowChatMemory(ChatMemorySyncFaces):
    """A :class:`~ostinato.memory.ChatMemory` keeping the latest ``max_messages`` messages of
    each conversation in a repository (see :func:`apply_window` for the exact policy).

    Args:
        repository: where conversations are kept (default: a new
            :class:`~ostinato_memory.InMemoryChatMemoryRepository`).
        max_messages: the most messages kept per conversation (default 20, at least 1).

    ``add``, ``get`` and ``clear`` are async; ``add_sync``, ``get_sync`` and
    ``clear_sync`` are their blocking twins (they run on ostinato's private event loop, so
    call the async ones from async code). Each ``add`` is one write to the repository
    (one transaction in SQLite); with an
    :class:`~ostinato_memory.UpdatableChatMemoryRepository` the read and the write are one
    atomic step, so concurrent writers to one conversation lose nothing.
    """

    DEFAULT_MAX_MESSAGES: ClassVar[int] = 20

    __slots__ = ("_max_messages", "_repository")

    def __init__(
        self,
        repository: ChatMemoryRepository | None = None,
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
    ) -> None:
        if repository is None:
            repository = InMemoryChatMemoryRepository()
        elif not isinstance(repository, ChatMemoryRepository):
            raise TypeError(
                f"repository must be a ChatMemoryRepository, got {type(repository).__name__} "
                "(e.g. InMemoryChatMemoryRepository() or SQLiteChatMemoryRepository(path))"
            )
        if isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 1:
            raise ValueError(f"maxMessages must be greater than 0, got {max_messages!r}")
        self._repository = repository
        self._max_messages = max_messages

    @property
    def repository(self) -> ChatMemoryRepository:
        """Where the conversations are kept."""
        return self._repository

    @property
    def max_messages(self) -> int:
        """The most messages kept per conversation."""
        return self._max_messages

    def window(self, stored: Sequence[Message], new: Sequence[Message]) -> list[Message]:
        """What this memory keeps after adding ``new`` to ``stored`` (nothing is written)."""
        return apply_window(stored, new, self._max_messages)

    async def add(self, conversation_id: str, messages: Sequence[Message] | Message) -> None:
        """Add ``messages`` (one message or several) as the newest of ``conversation_id``,
        then trim the conversation to the window, in one write."""
        check_conversation_id(conversation_id)
        new = check_messages(messages)
        if not new:
            return
        repository = self._repository
        if isinstance(repository, UpdatableChatMemoryRepository):
            await repository.update(conversation_id, lambda stored: self.window(stored, new))
            return
        stored = await repository.find_by_conversation_id(conversation_id)
        await repository.save_all(conversation_id, self.window(stored, new))

    async def get(self, conversation_id: str) -> list[Message]:
        """The kept messages of ``conversation_id``, oldest first."""
        check_conversation_id(conversation_id)
        return await self._repository.find_by_conversation_id(conversation_id)

    async def clear(self, conversation_id: str) -> None:
        """Forget ``conversation_id``."""
        check_conversation_id(conversation_id)
        await self._repository.delete_by_conversation_id(conversation_id)

    def add_sync(self, conversation_id: str, messages: Sequence[Message] | Message) -> None:
        """Blocking :meth:`add` (``get_sync`` and ``clear_sync`` come from
        :class:`~ostinato.memory.ChatMemorySyncFaces`)."""
        from ostinato.runtime import run_sync

        run_sync(self.add(conversation_id, messages), async_name="add")

    def __repr__(self) -> str:
        return f"MessageWindowChatMemory({self._repository!r}, max_messages={self._max_messages})"
