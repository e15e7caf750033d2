"""The repository contract, run against both repositories: in memory and SQLite (on a real
file). Results are sorted copies; arguments are checked with Spring AI's wording; every
async method has a ``_sync`` twin giving the same result. That every message type and
field round-trips exactly is checked by the conformance kit (``test_conformance.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato.memory import ChatMemoryRepository
from ostinato.messages import AssistantMessage, UserMessage
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    SQLiteChatMemoryRepository,
    UpdatableChatMemoryRepository,
)


@pytest.fixture(params=["in-memory", "sqlite"])
def repository(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatMemoryRepository]:
    if request.param == "in-memory":
        yield InMemoryChatMemoryRepository()
    else:
        with SQLiteChatMemoryRepository(tmp_path / "memory.sqlite3") as sqlite:
            yield sqlite


async def test_unknown_conversations_are_empty_and_results_are_copies(repository):
    assert await repository.find_by_conversation_id("nobody") == []
    await repository.save_all("c", [UserMessage("a")])
    found = await repository.find_by_conversation_id("c")
    found.append(UserMessage("b"))
    assert await repository.find_by_conversation_id("c") == [UserMessage("a")]


async def test_save_all_replaces_and_an_empty_save_removes(repository):
    await repository.save_all("c", [UserMessage("a"), AssistantMessage("b")])
    await repository.save_all("c", [UserMessage("x")])
    assert await repository.find_by_conversation_id("c") == [UserMessage("x")]
    await repository.save_all("c", [])
    assert await repository.find_by_conversation_id("c") == []
    assert await repository.find_conversation_ids() == []


async def test_conversation_ids_are_sorted_and_delete_forgets(repository):
    for name in ("b", "a", "c"):
        await repository.save_all(name, [UserMessage(name)])
    assert await repository.find_conversation_ids() == ["a", "b", "c"]
    await repository.delete_by_conversation_id("b")
    await repository.delete_by_conversation_id("never-there")
    assert await repository.find_conversation_ids() == ["a", "c"]
    assert await repository.find_by_conversation_id("b") == []


async def test_arguments_are_checked_with_spring_ai_wording(repository):
    for bad in ("", "  ", None, 7):
        with pytest.raises(ValueError, match="conversationId cannot be null or empty"):
            await repository.find_by_conversation_id(bad)
        with pytest.raises(ValueError, match="conversationId cannot be null or empty"):
            await repository.save_all(bad, [])
        with pytest.raises(ValueError, match="conversationId cannot be null or empty"):
            await repository.delete_by_conversation_id(bad)
    with pytest.raises(ValueError, match="messages cannot be null"):
        await repository.save_all("c", None)
    with pytest.raises(ValueError, match="messages cannot contain null elements"):
        await repository.save_all("c", [UserMessage("a"), None])
    with pytest.raises(TypeError, match=r"messages\[0\] is a str"):
        await repository.save_all("c", ["text"])
    with pytest.raises(TypeError, match="sequence of messages"):
        await repository.save_all("c", "text")
    assert await repository.find_conversation_ids() == []


async def test_update_reads_and_writes_in_one_step(repository):
    assert isinstance(repository, UpdatableChatMemoryRepository)
    await repository.save_all("c", [UserMessage("a")])
    new = await repository.update("c", lambda stored: [*stored, AssistantMessage("b")])
    assert new == [UserMessage("a"), AssistantMessage("b")]
    assert await repository.find_by_conversation_id("c") == new
    with pytest.raises(RuntimeError, match="no"):
        await repository.update("c", lambda stored: (_ for _ in ()).throw(RuntimeError("no")))
    assert await repository.find_by_conversation_id("c") == new  # unchanged
    assert await repository.update("c", lambda stored: []) == []
    assert await repository.find_conversation_ids() == []


def test_sync_twins(repository):
    repository.save_all_sync("c", [UserMessage("a")])
    assert repository.find_by_conversation_id_sync("c") == [UserMessage("a")]
    assert repository.find_conversation_ids_sync() == ["c"]
    assert repository.update_sync("c", lambda s: [*s, AssistantMessage("b")])[-1] == (
        AssistantMessage("b")
    )
    repository.delete_by_conversation_id_sync("c")
    assert repository.find_conversation_ids_sync() == []


def test_a_repository_satisfies_the_core_protocols(repository):
    assert isinstance(repository, ChatMemoryRepository)
    assert isinstance(repository, UpdatableChatMemoryRepository)
    assert type(repository).__name__ in repr(repository)
