"""The session part of the kit: what every :class:`~ostinato.memory.SessionLog` keeps.

Append-only and positioned, atomic appends, summaries with their ranges, branches that
see their parent up to the fork without copying it, full-text search over everything a
session reads (summarized entries too), isolation of sessions and odd ids, and
concurrent writers that never share a position nor interleave one append with another.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from ostinato.memory import EntryKind, SessionEntry, SessionLog
from ostinato.messages import SystemMessage
from ostinato.testing.memory_conformance._base import RepositoryConformanceBase
from ostinato.testing.memory_conformance._samples import (
    ODD_CONVERSATION_IDS,
    every_message_type,
    turn,
)

__all__ = ["SessionLogConformance"]

WRITERS = 20


def _turn(label: str) -> SessionEntry:
    return SessionEntry.turn(turn(label))


def _labels(entries: list[SessionEntry]) -> list[str | None]:
    return [e.messages[0].text if e.messages else e.kind.value for e in entries]


class SessionLogConformance(RepositoryConformanceBase):
    """Checks of a session log (a test class adds it beside the repository checks)."""

    async def make_session_log(self) -> SessionLog:
        """A session log of the store under test holding no session yet (called once per
        test, on its loop; a shared store gives each test a place of its own)."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_session_log()")

    @asynccontextmanager
    async def opened_log(self) -> AsyncIterator[SessionLog]:
        """A log from :meth:`make_session_log`, closed on the way out."""
        log = await self.make_session_log()
        assert isinstance(log, SessionLog), (
            f"make_session_log() returned {type(log).__name__}, not an ostinato.memory.SessionLog"
        )
        try:
            yield log
        finally:
            await self.close_repository(log)  # type: ignore[arg-type]

    async def test_session_entries_are_positioned_and_round_trip(self) -> None:
        """Appends get consecutive positions from 0; every message type comes back equal."""
        async with self.opened_log() as log:
            first = await log.append("s", [SessionEntry.turn(every_message_type())])
            more = await log.append("s", [_turn("2"), _turn("3")])
            assert [e.position for e in first + more] == [0, 1, 2]
            read = await log.read("s")
            assert read == first + more
            assert read[0].messages == tuple(every_message_type())
            assert await log.read("s", start=1) == more
            assert await log.read("unknown") == []

    async def test_the_log_is_append_only(self) -> None:
        """A later append leaves every earlier entry as it was."""
        async with self.opened_log() as log:
            await log.append("s", [_turn("1")])
            before = await log.read("s")
            await log.append("s", [_turn("2")])
            assert (await log.read("s"))[:1] == before

    async def test_summaries_keep_their_range(self) -> None:
        """A summary entry comes back with the range it covers; what it covers stays."""
        async with self.opened_log() as log:
            await log.append("s", [_turn(str(i)) for i in range(4)])
            summary = SessionEntry.summary(SystemMessage("the gist"), 0, 3)
            [stored] = await log.append("s", [summary])
            assert (stored.position, stored.kind, stored.covers) == (4, EntryKind.SUMMARY, (0, 3))
            read = await log.read("s")
            assert len(read) == 5
            assert read[4] == stored

    async def test_a_refused_append_stores_nothing(self) -> None:
        """An append holding an entry no log takes (a branch marker) stores none of it."""
        async with self.opened_log() as log:
            marker = SessionEntry(EntryKind.BRANCH, parent=("x", 0))
            with pytest.raises(ValueError, match="branch marker"):
                await log.append("s", [_turn("1"), marker])
            assert await log.read("s") == []

    async def test_a_branch_sees_its_parent_up_to_the_fork(self) -> None:
        """A branch reads the parent's entries before the fork, its marker, then its own;
        neither side sees the other's later entries."""
        async with self.opened_log() as log:
            await log.append("p", [_turn(str(i)) for i in range(3)])
            marker = await log.fork("p", 2, "b")
            assert (marker.kind, marker.position, marker.parent) == (EntryKind.BRANCH, 2, ("p", 2))
            [own] = await log.append("b", [_turn("b1")])
            await log.append("p", [_turn("p3")])
            assert own.position == 3
            assert _labels(await log.read("b")) == [
                "question 0",
                "question 1",
                "branch",
                "question b1",
            ]
            assert _labels(await log.read("p")) == [f"question {x}" for x in ("0", "1", "2", "p3")]
            await log.fork("b", 4, "bb")  # a branch of a branch
            await log.append("bb", [_turn("bb1")])
            assert _labels(await log.read("bb")) == [
                *("question 0", "question 1", "branch", "question b1"),
                *("branch", "question bb1"),
            ]
            assert [e.position for e in await log.read("bb")] == [0, 1, 2, 3, 4, 5]

    async def test_forks_are_checked(self) -> None:
        """Past the end, onto an existing session, or onto itself: refused."""
        async with self.opened_log() as log:
            await log.append("p", [_turn("1")])
            await log.append("taken", [_turn("1")])
            for position, branch in ((2, "b"), (-1, "b"), (0, "taken"), (0, "p")):
                with pytest.raises(ValueError, match="cannot"):
                    await log.fork("p", position, branch)
            assert await log.read("b") == []
            await log.fork("p", 1, "b")  # at the end: sees everything so far
            assert _labels(await log.read("b")) == ["question 1", "branch"]

    async def test_search_finds_every_word_summarized_entries_too(self) -> None:
        """Words match whole and case-insensitively, every one is needed; an entry a
        summary covers is still found; ``limit`` holds."""
        async with self.opened_log() as log:
            await log.append("s", [_turn("vault code 4417"), _turn("weather Paris")])
            await log.append("s", [SessionEntry.summary(SystemMessage("talked"), 0, 2)])
            await log.append("other", [_turn("vault code 9999")])
            hits = await log.search("s", "VAULT Code")
            assert [(h.session_id, h.entry.position) for h in hits] == [("s", 0)]
            assert "4417" in (hits[0].entry.messages[0].text or "")
            assert await log.search("s", "vault Paris") == []
            assert await log.search("s", "vau") == []
            assert await log.search("s", "") == []
            for i in range(5):
                await log.append("many", [_turn(f"apple {i}")])
            assert len(await log.search("many", "apple", limit=3)) == 3

    async def test_a_branch_searches_its_parent_before_the_fork_only(self) -> None:
        """Search in a branch finds the parent's entries before the fork and its own."""
        async with self.opened_log() as log:
            await log.append("p", [_turn("apple early"), _turn("apple late")])
            await log.fork("p", 1, "b")
            await log.append("b", [_turn("apple branch")])
            found = {(h.session_id, h.entry.position) for h in await log.search("b", "apple")}
            assert found == {("p", 0), ("b", 2)}

    async def test_sessions_are_isolated_listed_and_deleted(self) -> None:
        """Odd ids are kept apart and listed exactly; delete removes one session only."""
        async with self.opened_log() as log:
            for i, session in enumerate(ODD_CONVERSATION_IDS):
                await log.append(session, [_turn(str(i))])
            assert await log.session_ids() == sorted(ODD_CONVERSATION_IDS)
            for i, session in enumerate(ODD_CONVERSATION_IDS):
                assert _labels(await log.read(session)) == [f"question {i}"]
                assert [h.entry.position for h in await log.search(session, str(i))] == [0]
            await log.delete("a")
            assert await log.read("a") == []
            assert "a" not in await log.session_ids()
            assert _labels(await log.read("a:b")) == [
                f"question {ODD_CONVERSATION_IDS.index('a:b')}"
            ]

    async def test_concurrent_appends_never_share_a_position(self) -> None:
        """Concurrent appends of two entries each: every one stored once, each pair at
        consecutive positions, positions 0 to 2n-1."""
        async with self.opened_log() as log:
            results = await asyncio.gather(
                *(log.append("c", [_turn(f"{i}a"), _turn(f"{i}b")]) for i in range(WRITERS))
            )
            for appended in results:
                assert appended[1].position == appended[0].position + 1
            read = await log.read("c")
            assert [e.position for e in read] == list(range(2 * WRITERS))
            for i in range(0, len(read), 2):
                first, second = _labels(read[i : i + 2])
                assert first is not None
                assert second == first[:-1] + "b"

    async def test_blocking_faces_agree(self) -> None:
        """``append_sync``, ``read_sync``, ``fork_sync``, ``search_sync``, ``delete_sync``."""
        async with self.opened_log() as log:
            faces = log
            await self.blocking(faces.append_sync, "s", [_turn("sync words")])  # type: ignore[attr-defined]
            assert await self.blocking(faces.read_sync, "s") == await log.read("s")  # type: ignore[attr-defined]
            await self.blocking(faces.fork_sync, "s", 1, "b")  # type: ignore[attr-defined]
            hits = await self.blocking(faces.search_sync, "b", "words")  # type: ignore[attr-defined]
            assert [h.entry.position for h in hits] == [0]
            await self.blocking(faces.delete_sync, "s")  # type: ignore[attr-defined]
            assert await log.read("s") == []
