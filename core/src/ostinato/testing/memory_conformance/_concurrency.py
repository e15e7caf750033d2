"""Concurrent writers: to many conversations (none lost), to one (never a mix), and
atomic read-modify-write (``update``, when the repository offers it: nothing lost)."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.messages import Message
from ostinato.testing.memory_conformance._base import RepositoryConformanceBase
from ostinato.testing.memory_conformance._samples import turn

__all__ = ["ConcurrencyConformance"]

WRITERS = 20


class _ChangeFailed(Exception):
    pass


class ConcurrencyConformance(RepositoryConformanceBase):
    """Many writers at once on one repository object."""

    async def test_concurrent_writers_to_many_conversations(self) -> None:
        """Writers to different conversations at once lose nothing."""
        async with self.opened() as repository:
            await asyncio.gather(
                *(repository.save_all(f"c{i}", turn(str(i)) * 3) for i in range(WRITERS))
            )
            assert sorted(await repository.find_conversation_ids()) == sorted(
                f"c{i}" for i in range(WRITERS)
            )
            for i in range(WRITERS):
                assert await repository.find_by_conversation_id(f"c{i}") == turn(str(i)) * 3

    async def test_concurrent_writers_to_one_conversation_leave_one_whole_write(self) -> None:
        """Writers to one conversation at once leave exactly one of their writes, whole."""
        async with self.opened() as repository:
            writes = [turn(f"{i}a") + turn(f"{i}b") for i in range(WRITERS)]
            await asyncio.gather(*(repository.save_all("c", w) for w in writes))
            assert await repository.find_by_conversation_id("c") in writes

    async def test_concurrent_updates_lose_nothing(self) -> None:
        """Concurrent ``update`` calls appending a turn each: every turn stored once, whole."""
        async with self.opened() as repository:
            update = getattr(repository, "update", None)
            if update is None:
                pytest.fail(
                    f"{type(repository).__name__} has no update(conversation_id, change); "
                    "a repository shared by concurrent writers needs it (or leave "
                    "ConcurrencyConformance out and say why in your tests)"
                )

            def append(label: str):  # type: ignore[no-untyped-def]
                return lambda stored: [*stored, *turn(label)]

            await asyncio.gather(*(update("c", append(str(i))) for i in range(WRITERS)))
            found = await repository.find_by_conversation_id("c")
            assert len(found) == 2 * WRITERS
            labels = [found[i].text.removeprefix("question ") for i in range(0, len(found), 2)]  # type: ignore[union-attr]
            assert sorted(labels) == sorted(str(i) for i in range(WRITERS))
            for i in range(0, len(found), 2):  # every turn whole: its answer right after it
                assert found[i : i + 2] == turn(labels[i // 2])

    async def test_a_failed_update_changes_nothing(self) -> None:
        """A change that raises leaves the conversation as it was; the error reaches the caller."""
        async with self.opened() as repository:
            update = getattr(repository, "update", None)
            if update is None:
                pytest.fail(f"{type(repository).__name__} has no update(conversation_id, change)")
            await repository.save_all("c", turn("1"))

            def change(stored: list[Message]) -> list[Message]:
                raise _ChangeFailed("the change failed")

            with pytest.raises(_ChangeFailed):
                await update("c", change)
            assert await repository.find_by_conversation_id("c") == turn("1")
