"""Memory reads and writes are durable units: a replayed turn sees the history it saw
the first time, and a recorded write is not made twice."""

from __future__ import annotations

from ostinato import AdvisorParams, ChatClient
from ostinato.durable import UnitKind, durable_turn
from ostinato.testing import ScriptedChatModel
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
)
from tests.core.durable.journal import Journal


async def test_a_replayed_turn_is_stored_once_and_reads_the_history_it_read():
    repository = InMemoryChatMemoryRepository()
    advisor = MessageChatMemoryAdvisor(MessageWindowChatMemory(repository))
    journal = Journal()

    async def turn(model: ScriptedChatModel) -> str | None:
        builder = ChatClient.builder(model).default_advisors(advisor)
        client = builder.unit_wrappers(journal.wrapper()).build()
        spec = client.prompt("Hi").advisors(AdvisorParams.conversation_id("c-1"))
        return await spec.call().acontent()

    with durable_turn("t-1"):
        assert await turn(ScriptedChatModel(["Hello"])) == "Hello"
    assert [k for k, _ in journal.ran] == [
        UnitKind.MEMORY_READ,
        UnitKind.MODEL_CALL,
        UnitKind.MEMORY_WRITE,
    ]
    assert journal.inputs[0] == {"conversation_id": "c-1"}
    assert [m["text"] for m in journal.inputs[2]["messages"]] == ["Hi", "Hello"]
    stored = await repository.find_by_conversation_id("c-1")
    with durable_turn("t-1"):  # the whole turn again, after a crash past its end
        assert await turn(ScriptedChatModel([])) == "Hello"
    assert await repository.find_by_conversation_id("c-1") == stored
    assert [m.text for m in stored] == ["Hi", "Hello"]
