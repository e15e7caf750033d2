"""``MessageWindowChatMemory`` and its policy: Spring AI's window (at most ``max_messages``,
cut at a user message, system messages kept) made turn-atomic (a tool round is kept or
dropped whole)."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.errors import SyncFromLoopError
from ostinato.messages import AssistantMessage, Message, SystemMessage, UserMessage
from ostinato.runtime import get_private_loop
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    MessageWindowChatMemory,
    apply_window,
    pair_tool_messages,
)
from tests.fakes.conversations import tool_calls, tool_results

U1, A1, U2, A2, U3, A3 = (
    UserMessage("u1"),
    AssistantMessage("a1"),
    UserMessage("u2"),
    AssistantMessage("a2"),
    UserMessage("u3"),
    AssistantMessage("a3"),
)
S, S1, S2, S3 = SystemMessage("s"), SystemMessage("s1"), SystemMessage("s2"), SystemMessage("s3")
C1, T1, C2, T2 = tool_calls("1"), tool_results("1"), tool_calls("2"), tool_results("2")


def window(stored: list[Message], new: list[Message], limit: int) -> list[Message]:
    return apply_window(stored, new, limit)


# -- Spring AI's examples -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "new", "limit", "kept"),
    [
        ([U1, A1], [U2, A2], 2, [U2, A2]),
        ([], [U1, A1, U2, A2, U3], 2, [U3]),
        ([], [U1, A1, U2, A2, U3, A3], 3, [U3, A3]),
        ([], [U1, A1, AssistantMessage("b"), AssistantMessage("c"), U2, A2], 4, [U2, A2]),
        ([], [U1, A1, U2, A2, U3, A3], 4, [U2, A2, U3, A3]),
        ([S, U1, A1], [U2, A2], 3, [S, U2, A2]),
        ([S1, S2, U1, A1], [U2, A2], 3, [S1, S2]),
        ([S1, S2], [UserMessage("u"), AssistantMessage("a"), U2], 2, [S1, S2]),
        ([S1, S2], [S3], 2, [S3]),
        ([], [U1, C1, T1, C2], 3, []),  # snapping finds no user
    ],
)
def test_spring_ai_examples(stored, new, limit, kept):
    assert window(stored, new, limit) == kept


def test_a_stored_system_message_sent_again_is_not_new():
    assert window([S, U1, A1], [S, U2, A2], 10) == [S, U1, A1, S, U2, A2]


# -- turn-atomic ------------------------------------------------------------------------


def test_a_tool_round_is_kept_whole():
    turn = [U1, C1, T1, A1]
    assert window([], turn, 4) == turn
    assert window(turn, [U2, A2], 4) == [U2, A2]  # the whole first turn goes
    assert window(turn, [U2, A2], 6) == [*turn, U2, A2]


def test_a_window_never_starts_with_a_tool_response():
    turn = [U1, C1, T1, C2, T2, A1]
    for limit in range(1, 8):
        kept = window(turn, [U2, A2], limit)
        assert not kept or isinstance(kept[0], UserMessage), (limit, kept)


def test_a_tool_response_without_its_call_is_dropped():
    assert window([], [T1], 5) == []  # Spring AI keeps a lone [T]
    assert window([U1, A1], [T1, A2], 5) == [U1, A1, A2]
    assert pair_tool_messages([U1, AssistantMessage("no calls"), T1]) == [
        U1,
        AssistantMessage("no calls"),
    ]


def test_a_call_without_its_responses_is_dropped_unless_newest():
    assert window([], [U1, C1], 5) == [U1, C1]  # awaiting its responses
    assert window([U1, C1], [T1, A1], 5) == [U1, C1, T1, A1]
    assert window([U1, C1], [U2, A2], 5) == [U1, U2, A2]  # abandoned


def test_one_call_with_several_response_messages_and_system_messages_between():
    messages = [U1, C1, S, T1, tool_results("1b"), A1]
    assert pair_tool_messages(messages) == messages
    assert pair_tool_messages([U1, S, tool_results("x")]) == [U1, S]


# -- the memory ---------------------------------------------------------------------------


def test_construction_checks():
    memory = MessageWindowChatMemory()
    assert memory.max_messages == MessageWindowChatMemory.DEFAULT_MAX_MESSAGES == 20
    assert isinstance(memory.repository, InMemoryChatMemoryRepository)
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="maxMessages must be greater than 0"):
            MessageWindowChatMemory(max_messages=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="repository must be a ChatMemoryRepository"):
        MessageWindowChatMemory(object())  # type: ignore[arg-type]
    assert "max_messages=20" in repr(memory)


async def test_add_get_clear():
    memory = MessageWindowChatMemory(max_messages=3)
    await memory.add("c", U1)
    await memory.add("c", [A1, U2, A2])
    assert await memory.get("c") == [U2, A2]
    await memory.add("c", [])
    assert await memory.get("c") == [U2, A2]
    await memory.clear("c")
    assert await memory.get("c") == []
    with pytest.raises(ValueError, match="conversationId cannot be null or empty"):
        await memory.add(" ", [U1])
    with pytest.raises(ValueError, match="messages cannot contain null elements"):
        await memory.add("c", [U1, None])  # type: ignore[list-item]


def test_sync_twins_run_on_the_private_loop():
    memory = MessageWindowChatMemory()
    memory.add_sync("c", [U1, A1])
    assert memory.get_sync("c") == [U1, A1]
    memory.clear_sync("c")
    assert memory.get_sync("c") == []


def test_sync_twins_refuse_the_private_loop_thread():
    memory = MessageWindowChatMemory()

    async def inside() -> None:
        memory.get_sync("c")

    future = asyncio.run_coroutine_threadsafe(inside(), get_private_loop())
    with pytest.raises(SyncFromLoopError, match="get"):
        future.result(timeout=5)


class PlainRepository:
    """A repository without ``update``: the memory reads, then saves."""

    def __init__(self) -> None:
        self.inner = InMemoryChatMemoryRepository()
        self.calls: list[str] = []

    async def find_conversation_ids(self) -> list[str]:
        return await self.inner.find_conversation_ids()

    async def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        self.calls.append("find")
        return await self.inner.find_by_conversation_id(conversation_id)

    async def save_all(self, conversation_id: str, messages: list[Message]) -> None:
        self.calls.append("save")
        await self.inner.save_all(conversation_id, messages)

    async def delete_by_conversation_id(self, conversation_id: str) -> None:
        await self.inner.delete_by_conversation_id(conversation_id)


async def test_any_repository_works_and_updatable_ones_are_updated_atomically():
    plain = PlainRepository()
    memory = MessageWindowChatMemory(plain)  # type: ignore[arg-type]
    await memory.add("c", [U1, A1])
    assert plain.calls == ["find", "save"]
    assert await memory.get("c") == [U1, A1]

    class Updating(InMemoryChatMemoryRepository):
        updates = 0

        async def update(self, conversation_id, change):  # type: ignore[no-untyped-def]
            Updating.updates += 1
            return await super().update(conversation_id, change)

    updating = MessageWindowChatMemory(Updating())
    await updating.add("c", [U1, A1])
    assert Updating.updates == 1


async def test_concurrent_adds_to_one_conversation_lose_nothing():
    memory = MessageWindowChatMemory(max_messages=1000)
    turns = [[UserMessage(f"u{i}"), AssistantMessage(f"a{i}")] for i in range(50)]
    await asyncio.gather(*(memory.add("c", turn) for turn in turns))
    stored = await memory.get("c")
    assert len(stored) == 100
    pairs = [stored[i : i + 2] for i in range(0, 100, 2)]
    assert sorted(pairs, key=lambda p: int((p[0].text or "u0")[1:])) == turns
