"""What every session log shares — branches and search across them — and the in-memory log.

A store keeps each session's *own* entries; :class:`BranchingSessionLog` turns those into
what a session reads: a branch sees its parent's entries before the fork (recursively, a
branch of a branch too), its marker, then its own. Nothing is copied at a fork, so a
store implements five small primitives (read own, append own, create a branch, search
own, parent of) and gets :meth:`read`, :meth:`fork` and :meth:`search` from here.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence

from ostinato.memory import (
    EntryKind,
    SessionEntry,
    SessionLogSyncFaces,
    SessionSearchHit,
    search_terms,
)
from ostinato_memory._errors import ChatMemoryRepositoryError
from ostinato_memory._validation import check_conversation_id

__all__ = [
    "BranchingSessionLog",
    "InMemorySessionLog",
    "check_entries",
    "decode_entry",
    "encode_entry",
    "searchable_text",
    "term_score",
]

#: How deep a chain of branches may go (a cycle can only come from a damaged store).
MAX_BRANCH_DEPTH = 1000


def encode_entry(entry: SessionEntry) -> str:
    """``entry``'s stored form: its JSON (:meth:`~ostinato.memory.SessionEntry.to_dict`) as
    text any store takes (a lone surrogate is escaped, as for messages).

    Raises:
        ChatMemoryRepositoryError: its metadata holds something JSON cannot carry.
    """
    try:
        text = json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":"))
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(entry.to_dict(), separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ChatMemoryRepositoryError(
            f"cannot store session entry {entry!r}: its JSON form failed: {exc}; nothing "
            "was changed\nfix: keep message metadata to JSON values"
        ) from exc
    return text


def decode_entry(session_id: str, position: int, text: str, where: str) -> SessionEntry:
    """The entry stored as ``text`` at ``position`` (``where`` names the store).

    Raises:
        ChatMemoryRepositoryError: the text is not a stored entry.
    """
    try:
        return SessionEntry.from_dict(json.loads(text), position)
    except (TypeError, ValueError, KeyError) as exc:
        raise ChatMemoryRepositoryError(
            f"entry {position} of session {session_id!r} in {where} cannot be read: {exc}\n"
            "fix: delete the session or repair the record",
            path=where,
        ) from exc


def searchable_text(entry: SessionEntry) -> str:
    """``entry``'s text for a full-text index: valid UTF-8, without NUL characters."""
    text = entry.text().replace("\x00", " ")
    return text.encode("utf-8", "replace").decode("utf-8")


def check_entries(entries: Sequence[SessionEntry]) -> list[SessionEntry]:
    """``entries`` as a list, checked: turns and summaries only (a branch marker is made
    by :meth:`~BranchingSessionLog.fork`), summaries covering positions before their own."""
    checked = list(entries)
    for entry in checked:
        if not isinstance(entry, SessionEntry):
            raise TypeError(f"a session log appends SessionEntry values, got {entry!r}")
        if entry.kind is EntryKind.BRANCH:
            raise ValueError(
                "a branch marker cannot be appended: fork(session_id, position, branch_id) "
                "starts a branch"
            )
        if entry.kind is EntryKind.SUMMARY and (entry.covers is None or len(entry.messages) != 1):
            raise ValueError(
                "a summary entry holds one message and the range it covers: "
                "use SessionEntry.summary(message, start, end)"
            )
    return checked


def term_score(terms: Sequence[str], text: str) -> float:
    """How often ``terms`` occur in ``text``'s words; 0 unless every one of them does."""
    words = search_terms(text)
    counts = [words.count(term) for term in terms]
    return float(sum(counts)) if counts and all(counts) else 0.0


class BranchingSessionLog(SessionLogSyncFaces, ABC):
    """A :class:`~ostinato.memory.SessionLog` from a store's primitives."""

    __slots__ = ()

    @abstractmethod
    async def _own(self, session_id: str, start: int) -> list[SessionEntry]:
        """The session's own entries from position ``start``, oldest first."""

    @abstractmethod
    async def _append_own(self, session_id: str, entries: list[SessionEntry]) -> list[SessionEntry]:
        """Append after the session's last own entry (position 0 when none), atomically."""

    @abstractmethod
    async def _create_branch(self, branch_id: str, marker: SessionEntry) -> bool:
        """Store ``marker`` (at its position) as ``branch_id``'s first entry, unless the
        session holds entries already (then ``False``), atomically."""

    @abstractmethod
    async def _parent(self, session_id: str) -> tuple[str, int] | None:
        """``(parent, fork position)`` of a branch; ``None`` for a root session."""

    @abstractmethod
    async def _search_own(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        """Own entries (before ``below``, when given) holding every term, best first."""

    async def _chain(self, session_id: str) -> list[tuple[str, int | None]]:
        """``(session, below)`` from the session up through its ancestors."""
        chain: list[tuple[str, int | None]] = [(session_id, None)]
        below: int | None = None
        current = session_id
        for _ in range(MAX_BRANCH_DEPTH):
            parent = await self._parent(current)
            if parent is None:
                return chain
            current, at = parent
            below = at if below is None else min(below, at)
            chain.append((current, below))
        raise ValueError(f"session {session_id!r} has branches nested deeper than allowed")

    async def append(self, session_id: str, entries: Sequence[SessionEntry]) -> list[SessionEntry]:
        """Append ``entries`` after the session's last one, atomically; return them with
        their positions."""
        check_conversation_id(session_id)
        checked = check_entries(entries)
        if not checked:
            return []
        return await self._append_own(session_id, checked)

    async def read(self, session_id: str, *, start: int = 0) -> list[SessionEntry]:
        """The session's entries from ``start``: a branch's parent's before the fork, then
        its own."""
        check_conversation_id(session_id)
        found: list[SessionEntry] = []
        for name, below in reversed(await self._chain(session_id)):
            own = await self._own(name, start)
            found.extend(e for e in own if below is None or e.position < below)
        return found

    async def fork(self, session_id: str, position: int, branch_id: str) -> SessionEntry:
        """Start ``branch_id`` as a branch of ``session_id`` seeing its entries before
        ``position``; return the marker (at ``position``)."""
        check_conversation_id(session_id)
        check_conversation_id(branch_id)
        if branch_id == session_id:
            raise ValueError(f"cannot fork a session into itself ({session_id!r})")
        entries = await self.read(session_id)
        end = entries[-1].position + 1 if entries else 0
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position <= end:
            raise ValueError(
                f"cannot fork session {session_id!r} at position {position!r}: it holds "
                f"positions 0 to {end - 1}; fork at 0 to {end} (a branch sees the entries "
                "before its fork position)"
            )
        marker = SessionEntry(EntryKind.BRANCH, position=position, parent=(session_id, position))
        if not await self._create_branch(branch_id, marker):
            raise ValueError(
                f"cannot start branch {branch_id!r}: a session of that id holds entries "
                "already; fix: choose a new id for the branch"
            )
        return marker

    async def search(
        self, session_id: str, query: str, *, limit: int = 10
    ) -> list[SessionSearchHit]:
        """At most ``limit`` entries of what ``session_id`` reads holding every word of
        ``query``, best first (then the newest first)."""
        check_conversation_id(session_id)
        terms = list(dict.fromkeys(search_terms(query)))
        if not terms or limit < 1:
            return []
        hits: list[SessionSearchHit] = []
        for name, below in await self._chain(session_id):
            for entry, score in await self._search_own(name, terms, below, limit):
                hits.append(SessionSearchHit(name, entry, score))
        hits.sort(key=lambda h: (-h.score, -h.entry.position))
        return hits[:limit]


class InMemorySessionLog(BranchingSessionLog):
    """A :class:`~ostinato.memory.SessionLog` in process memory, for tests and single
    processes. Safe to share between threads and event loops (one lock); search scans
    the entries. Blocking faces (``append_sync``...) come with the protocol's mixin."""

    __slots__ = ("_lock", "_sessions")

    def __init__(self) -> None:
        self._sessions: dict[str, list[SessionEntry]] = {}
        self._lock = threading.Lock()

    async def _own(self, session_id: str, start: int) -> list[SessionEntry]:
        with self._lock:
            return [e for e in self._sessions.get(session_id, ()) if e.position >= start]

    async def _append_own(self, session_id: str, entries: list[SessionEntry]) -> list[SessionEntry]:
        with self._lock:
            stored = self._sessions.setdefault(session_id, [])
            start = stored[-1].position + 1 if stored else 0
            appended = [entry.at(start + i) for i, entry in enumerate(entries)]
            stored.extend(appended)
            return appended

    async def _create_branch(self, branch_id: str, marker: SessionEntry) -> bool:
        with self._lock:
            if self._sessions.get(branch_id):
                return False
            self._sessions[branch_id] = [marker]
            return True

    async def _parent(self, session_id: str) -> tuple[str, int] | None:
        with self._lock:
            stored = self._sessions.get(session_id)
            first = stored[0] if stored else None
        return first.parent if first is not None and first.kind is EntryKind.BRANCH else None

    async def _search_own(
        self, session_id: str, terms: list[str], below: int | None, limit: int
    ) -> list[tuple[SessionEntry, float]]:
        with self._lock:
            entries = list(self._sessions.get(session_id, ()))
        scored = [
            (entry, term_score(terms, entry.text()))
            for entry in entries
            if below is None or entry.position < below
        ]
        found = [(e, s) for e, s in scored if s > 0]
        found.sort(key=lambda pair: (-pair[1], -pair[0].position))
        return found[:limit]

    async def session_ids(self) -> list[str]:
        """Every session id holding an entry, sorted."""
        with self._lock:
            return sorted(name for name, entries in self._sessions.items() if entries)

    async def delete(self, session_id: str) -> None:
        """Remove ``session_id``'s own entries."""
        check_conversation_id(session_id)
        with self._lock:
            self._sessions.pop(session_id, None)

    def __repr__(self) -> str:
        with self._lock:
            return f"InMemorySessionLog({len(self._sessions)} sessions)"
