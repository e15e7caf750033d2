"""The memory contracts: the protocols, and the sync faces implementations inherit."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from ostinato.errors import SyncFromLoopError
from ostinato.memory import (
    ChatMemory,
    ChatMemoryRepository,
    ChatMemoryRepositorySyncFaces,
    ChatMemorySyncFaces,
)
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.runtime import run_sync


class ListMemory(ChatMemorySyncFaces):
    """A memory that keeps everything, async only but for the inherited faces."""

    def __init__(self) -> None:
        self.conversations: dict[str, list[Message]] = {}
        self.loops: set[int] = set()

    async def add(self, conversation_id: str, messages: Sequence[Message]) -> None:
        self.loops.add(id(asyncio.get_running_loop()))
        self.conversations.setdefault(conversation_id, []).extend(messages)

    async def get(self, conversation_id: str) -> list[Message]:
        return list(self.conversations.get(conversation_id, []))

    async def clear(self, conversation_id: str) -> None:
        self.conversations.pop(conversation_id, None)


class DictRepository(ChatMemoryRepositorySyncFaces):
    def __init__(self) -> None:
        self.conversations: dict[str, list[Message]] = {}

    async def find_conversation_ids(self) -> list[str]:
        return list(self.conversations)

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        return list(self.conversations.get(conversation_id, []))

    async def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        self.conversations[conversation_id] = list(messages)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        self.conversations.pop(conversation_id, None)


def test_the_memory_faces_run_the_async_methods():
    memory = ListMemory()
    assert isinstance(memory, ChatMemory)
    memory.add_sync("c1", [UserMessage("hi"), AssistantMessage("hello")])
    assert memory.get_sync("c1") == [UserMessage("hi"), AssistantMessage("hello")]
    memory.clear_sync("c1")
    assert memory.get_sync("c1") == []


async def test_the_faces_work_inside_a_running_event_loop():
    # Called from a coroutine's thread (not the private loop's): they run on the private
    # loop and wait, instead of failing because a loop is already running here.
    memory = ListMemory()
    memory.add_sync("c1", [UserMessage("hi")])
    assert memory.loops and id(asyncio.get_running_loop()) not in memory.loops


def test_the_faces_refuse_the_private_loops_own_thread():
    memory = ListMemory()

    async def from_the_private_loop() -> None:
        memory.get_sync("c1")

    with pytest.raises(SyncFromLoopError, match="get"):
        run_sync(from_the_private_loop())


def test_the_repository_faces_run_the_async_methods():
    repository = DictRepository()
    assert isinstance(repository, ChatMemoryRepository)
    repository.save_all_sync("c1", [UserMessage("hi")])
    repository.save_all_sync("c2", [UserMessage("yo")])
    assert repository.find_conversation_ids_sync() == ["c1", "c2"]
    assert repository.find_by_conversation_id_sync("c1") == [UserMessage("hi")]
    repository.delete_by_conversation_id_sync("c1")
    assert repository.find_conversation_ids_sync() == ["c2"]
