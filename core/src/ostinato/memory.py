"""Conversation memory contracts. Implementations live in plugins (``ostinato-memory``).

``ChatMemory`` is what memory advisors talk to; ``ChatMemoryRepository`` is where a
memory keeps its messages (in memory, SQLite...). Both are async — that is what memory
advisors call. Their blocking faces (``get_sync``, ``save_all_sync``...) come with
:class:`ChatMemorySyncFaces` and :class:`ChatMemoryRepositorySyncFaces`, mixins an
implementation inherits (or overrides, when its work is blocking anyway). The
conversation id travels in the advisor context under :data:`CONVERSATION_ID` (set it
with ``AdvisorParams.conversation_id(...)``).

*Session memory* keeps a conversation as an append-only log instead: a
:class:`SessionLog` holds, per session, a sequence of :class:`SessionEntry` — the
messages of a turn (or of one tool round of it), compaction summaries covering a range of
earlier positions, branch markers — each with its position, never rewritten in place.
``ostinato-memory`` builds a ``ChatMemory`` on top of it (``SessionMemory``), so the
advisors above keep working; see ``docs/memory.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from ostinato.context_keys import CONVERSATION_ID
from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolResponseMessage,
    message_from_dict,
)

__all__ = [
    "CONVERSATION_ID",
    "ChatMemory",
    "ChatMemoryRepository",
    "ChatMemoryRepositorySyncFaces",
    "ChatMemorySyncFaces",
    "EntryKind",
    "SessionEntry",
    "SessionLog",
    "SessionLogSyncFaces",
    "SessionSearchHit",
    "search_terms",
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


# -- session memory: the append-only log ---------------------------------------------------


class EntryKind(StrEnum):
    """What a :class:`SessionEntry` is (its value is the stored name)."""

    TURN = "turn"
    """The messages of a turn, or of one whole tool round of it (memory inside the loop)."""
    SUMMARY = "summary"
    """A compaction summary: one message standing for the positions it covers."""
    BRANCH = "branch"
    """The first entry of a branch: where it forked from its parent."""


_WORD = re.compile(r"\w+")


def search_terms(text: str) -> list[str]:
    """The words of ``text`` as every session log matches them: runs of letters, digits
    and ``_``, lower-cased (a query matches an entry holding every one of its words)."""
    return _WORD.findall(text.lower())


@dataclass(frozen=True, slots=True)
class SessionEntry:
    """One entry of a session log.

    Attributes:
        kind: what it is.
        messages: a turn's messages (several), a summary's one message, none for a branch.
        position: its place in the session, from 0; ``-1`` until a log appends it. A
            branch's own entries follow its parent's, so positions never repeat in what
            a session reads.
        covers: a summary's range of positions ``(start, end)``, ``end`` excluded.
        parent: a branch marker's ``(parent session id, fork position)``.
    """

    kind: EntryKind
    messages: tuple[Message, ...] = ()
    position: int = -1
    covers: tuple[int, int] | None = None
    parent: tuple[str, int] | None = None

    @classmethod
    def turn(cls, messages: Sequence[Message]) -> SessionEntry:
        """A turn entry (not appended yet)."""
        return cls(EntryKind.TURN, tuple(messages))

    @classmethod
    def summary(cls, message: Message, start: int, end: int) -> SessionEntry:
        """A summary entry standing for positions ``start`` to ``end`` (excluded)."""
        if not 0 <= start < end:
            raise ValueError(f"a summary covers start < end, both >= 0; got {start}, {end}")
        return cls(EntryKind.SUMMARY, (message,), covers=(start, end))

    def at(self, position: int) -> SessionEntry:
        """This entry at ``position`` (what a log returns once it appended it)."""
        return SessionEntry(self.kind, self.messages, position, self.covers, self.parent)

    def text(self) -> str:
        """The searchable text: every message's text, tool calls and tool results."""
        parts: list[str] = []
        for message in self.messages:
            if message.text:
                parts.append(message.text)
            if isinstance(message, AssistantMessage):
                parts.extend(f"{c.name} {c.arguments}" for c in message.tool_calls)
            if isinstance(message, ToolResponseMessage):
                parts.extend(f"{r.name} {r.response_data}" for r in message.responses)
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form a store keeps (without the position, which the store keeps)."""
        data: dict[str, Any] = {
            "kind": self.kind.value,
            "messages": [m.to_dict() for m in self.messages],
        }
        if self.covers is not None:
            data["covers"] = list(self.covers)
        if self.parent is not None:
            data["parent"] = list(self.parent)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], position: int = -1) -> SessionEntry:
        """The entry of :meth:`to_dict`'s form, at ``position``."""
        covers = data.get("covers")
        parent = data.get("parent")
        return cls(
            EntryKind(data["kind"]),
            tuple(message_from_dict(m) for m in data.get("messages", ())),
            position,
            None if covers is None else (int(covers[0]), int(covers[1])),
            None if parent is None else (str(parent[0]), int(parent[1])),
        )


@dataclass(frozen=True, slots=True)
class SessionSearchHit:
    """An entry a search found.

    Attributes:
        session_id: the session storing it (a branch's parent, for what came before the fork).
        entry: the entry.
        score: how well it matched (higher is better; comparable within one search only).
    """

    session_id: str
    entry: SessionEntry
    score: float


@runtime_checkable
class SessionLog(Protocol):
    """Append-only session logs, by session id (the conversation id).

    Rules every store keeps (the memory conformance kit's session part checks them):
    ``append`` is atomic (all its entries, at consecutive positions, or none) and
    concurrent appends to one session never share a position; nothing is rewritten; a
    branch reads its parent's entries before the fork, then its own.
    """

    async def append(self, session_id: str, entries: Sequence[SessionEntry]) -> list[SessionEntry]:
        """Append ``entries`` after the session's last one, atomically; return them with
        their positions."""
        ...

    async def read(self, session_id: str, *, start: int = 0) -> list[SessionEntry]:
        """The session's entries from position ``start``, oldest first (a branch: its
        parent's before the fork, its marker, its own); empty when unknown."""
        ...

    async def fork(self, session_id: str, position: int, branch_id: str) -> SessionEntry:
        """Start session ``branch_id`` as a branch of ``session_id`` that sees its entries
        before ``position`` (nothing is copied); return the branch marker.

        Raises:
            ValueError: ``position`` is past the session's end, or ``branch_id`` exists.
        """
        ...

    async def search(
        self, session_id: str, query: str, *, limit: int = 10
    ) -> list[SessionSearchHit]:
        """At most ``limit`` entries of what ``session_id`` reads (summarized ones too)
        holding every word of ``query`` (:func:`search_terms`), best first."""
        ...

    async def session_ids(self) -> list[str]:
        """Every session id holding an entry, sorted."""
        ...

    async def delete(self, session_id: str) -> None:
        """Remove ``session_id``'s own entries (its branches then see none of them)."""
        ...


class SessionLogSyncFaces:
    """Blocking faces of a :class:`SessionLog`, for an implementation to inherit (each runs
    the async method on ostinato's private loop, as :class:`ChatMemorySyncFaces` does)."""

    __slots__ = ()

    def append_sync(
        self: SessionLog, session_id: str, entries: Sequence[SessionEntry]
    ) -> list[SessionEntry]:
        """Blocking :meth:`SessionLog.append`."""
        from ostinato.runtime import run_sync

        return run_sync(self.append(session_id, entries), async_name="append")

    def read_sync(self: SessionLog, session_id: str, *, start: int = 0) -> list[SessionEntry]:
        """Blocking :meth:`SessionLog.read`."""
        from ostinato.runtime import run_sync

        return run_sync(self.read(session_id, start=start), async_name="read")

    def fork_sync(self: SessionLog, session_id: str, position: int, branch_id: str) -> SessionEntry:
        """Blocking :meth:`SessionLog.fork`."""
        from ostinato.runtime import run_sync

        return run_sync(self.fork(session_id, position, branch_id), async_name="fork")

    def search_sync(
        self: SessionLog, session_id: str, query: str, *, limit: int = 10
    ) -> list[SessionSearchHit]:
        """Blocking :meth:`SessionLog.search`."""
        from ostinato.runtime import run_sync

        return run_sync(self.search(session_id, query, limit=limit), async_name="search")

    def delete_sync(self: SessionLog, session_id: str) -> None:
        """Blocking :meth:`SessionLog.delete`."""
        from ostinato.runtime import run_sync

        run_sync(self.delete(session_id), async_name="delete")
