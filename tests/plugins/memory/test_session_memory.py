"""Session memory: the compacted view, strategies, background and durable compaction,
branches through the advisor, and ChatMemory users on a session."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from ostinato import AdvisorParams, ChatClient
from ostinato.durable import UnitKind, durable_turn
from ostinato.memory import EntryKind, SessionEntry
from ostinato.messages import Message, SystemMessage, UserMessage
from ostinato.testing import ScriptedChatModel
from ostinato.testing.memory_conformance import turn
from ostinato.units import UnitOrder, UnitWrapper
from ostinato_memory import (
    InMemorySessionLog,
    LastTurns,
    MessageChatMemoryAdvisor,
    SessionMemory,
    SessionMemoryAdvisor,
    SummarizeOlderTurns,
    TokenBudget,
    estimate_tokens,
    session_blocks,
)
from tests.core.durable.journal import Journal


def _texts(messages: Sequence[Message]) -> list[str | None]:
    return [m.text for m in messages]


async def _summary_of(messages: Sequence[Message]) -> str:
    return "gist of " + ",".join(m.text or "" for m in messages if isinstance(m, UserMessage))


async def test_the_view_puts_the_newest_summary_in_place_of_what_it_covers():
    log = InMemorySessionLog()
    await log.append("s", [SessionEntry.turn(turn(str(i))) for i in range(4)])
    await log.append("s", [SessionEntry.summary(SystemMessage("one"), 0, 2)])
    await log.append("s", [SessionEntry.summary(SystemMessage("two"), 0, 3)])  # holds "one"
    view = await SessionMemory(log).get("s")
    assert _texts(view) == ["two", "question 3", "answer 3"]
    assert [b.is_summary for b in session_blocks(await log.read("s"))] == [True, False]


async def test_last_turns_and_token_budget_keep_whole_turns():
    memory = SessionMemory(strategies=[LastTurns(2)])
    for i in range(5):
        await memory.add("s", turn(str(i)))
    assert _texts(await memory.get("s")) == ["question 3", "answer 3", "question 4", "answer 4"]
    one_turn = estimate_tokens(turn("0"))
    budget = SessionMemory(memory.log, strategies=[TokenBudget(one_turn * 3 - 1)])
    assert len(await budget.get("s")) == 4  # two whole turns fit, never a half one
    assert len(await memory.log.read("s")) == 5  # nothing removed


async def test_background_compaction_never_holds_the_answer_back():
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow(messages: Sequence[Message]) -> str:
        started.set()
        await release.wait()
        return "late gist"

    memory = SessionMemory(strategies=[SummarizeOlderTurns(slow, max_turns=1, keep_turns=1)])
    advisor = SessionMemoryAdvisor(memory)
    model = ScriptedChatModel(["a1", "a2"])
    client = ChatClient.builder(model).default_advisors(advisor).build()
    for question in ("q1", "q2"):
        spec = client.prompt(question).advisors(AdvisorParams.conversation_id("s"))
        assert await asyncio.wait_for(spec.call().acontent(), 5) in ("a1", "a2")
    await asyncio.wait_for(started.wait(), 5)  # it runs, after the answer came back
    release.set()
    await advisor.wait_for_compaction()
    kinds = [e.kind for e in await memory.log.read("s")]
    assert kinds == [EntryKind.TURN, EntryKind.TURN, EntryKind.SUMMARY]
    assert _texts(await memory.get("s"))[0].endswith("late gist")  # type: ignore[union-attr]


async def test_compaction_in_a_durable_turn_is_recorded_and_not_repeated():
    memory = SessionMemory(strategies=[SummarizeOlderTurns(_summary_of, max_turns=1, keep_turns=1)])
    await memory.add("s", turn("old"))
    advisor = SessionMemoryAdvisor(memory)  # background by default: awaited in a durable turn
    journal = Journal()
    for _ in range(2):  # the second time: a replay after a crash past the end
        builder = ChatClient.builder(ScriptedChatModel(["new answer"]))
        client = builder.default_advisors(advisor).unit_wrappers(journal.wrapper()).build()
        with durable_turn("t-1"):
            spec = client.prompt("new").advisors(AdvisorParams.conversation_id("s"))
            assert await spec.call().acontent() == "new answer"
    assert [k for k, _ in journal.ran] == [
        UnitKind.MEMORY_READ,
        UnitKind.MODEL_CALL,
        UnitKind.MEMORY_WRITE,
        UnitKind.MEMORY_READ,  # compaction's read of the log
        UnitKind.MEMORY_WRITE,  # the summary it appends
    ]
    summary = journal.inputs[4]["messages"][0]["metadata"]["ostinato.session.entry"]
    assert (summary["kind"], summary["covers"]) == ("summary", [0, 1])
    entries = await memory.log.read("s")
    assert [e.kind for e in entries] == [EntryKind.TURN, EntryKind.TURN, EntryKind.SUMMARY]


async def test_a_branch_continues_from_its_fork_through_the_advisor():
    memory = SessionMemory()
    for i in range(3):
        await memory.add("main", turn(str(i)))
    await memory.fork("main", 1, "what-if")
    model = ScriptedChatModel(["branch answer"])
    client = ChatClient.builder(model).default_advisors(SessionMemoryAdvisor(memory)).build()
    spec = client.prompt("what if").advisors(AdvisorParams.conversation_id("what-if"))
    assert await spec.call().acontent() == "branch answer"
    assert _texts(model.prompts[0].messages) == ["question 0", "answer 0", "what if"]
    assert len(await memory.log.read("main")) == 3  # the parent is untouched


async def test_existing_chat_memory_advisors_work_on_a_session():
    memory = SessionMemory(InMemorySessionLog(), strategies=[LastTurns(1)])
    model = ScriptedChatModel(["a1", "a2"])
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    for question in ("q1", "q2"):
        await client.prompt(question).advisors(AdvisorParams.conversation_id("c")).call().acontent()
    assert _texts(model.prompts[1].messages) == ["q1", "a1", "q2"]
    assert [len(e.messages) for e in await memory.log.read("c")] == [2, 2]


def test_the_session_advisor_needs_a_session_memory():
    from ostinato_memory import MessageWindowChatMemory

    with pytest.raises(TypeError, match="needs a SessionMemory"):
        SessionMemoryAdvisor(MessageWindowChatMemory())  # type: ignore[arg-type]


@pytest.mark.parametrize("crash", [False, True])
async def test_a_model_summary_in_a_durable_turn_is_a_recorded_model_call(crash: bool) -> None:
    summarizer = ScriptedChatModel(responder=lambda prompt: "the gist")
    memory = SessionMemory(strategies=[SummarizeOlderTurns(summarizer, max_turns=1, keep_turns=1)])
    await memory.add("s", turn("old"))
    advisor = SessionMemoryAdvisor(memory)
    journal = Journal()
    crashing = [crash]

    async def crash_at_the_summary_write(unit: Any, next: Any) -> Any:
        if crashing[0] and unit.kind is UnitKind.MEMORY_WRITE and unit.sequence == 6:
            raise RuntimeError("the worker died here")  # after the summary's model call
        return await next(unit)

    crasher = UnitWrapper.of_all("crash", UnitOrder.DURABLE + 1, crash_at_the_summary_write)
    for _ in range(2):  # the second run: a replay (past the end, or after the crash)
        builder = ChatClient.builder(ScriptedChatModel(["new answer"]))
        builder.default_advisors(advisor).unit_wrappers(journal.wrapper(), crasher)
        client = builder.build()
        with durable_turn("t-1"):
            spec = client.prompt("new").advisors(AdvisorParams.conversation_id("s"))
            assert await spec.call().acontent() == "new answer"
        crashing[0] = False
    assert [k for k, _ in journal.ran] == [
        UnitKind.MEMORY_READ,
        UnitKind.MODEL_CALL,
        UnitKind.MEMORY_WRITE,
        UnitKind.MEMORY_READ,  # compaction's read of the log
        UnitKind.MODEL_CALL,  # the summarizer's model call
        UnitKind.MEMORY_WRITE,  # the summary it appends (on the replay, after a crash)
    ]
    assert len(summarizer.prompts) == 1  # asked once, whatever the replays
    entries = await memory.log.read("s")
    assert [e.kind for e in entries] == [EntryKind.TURN, EntryKind.TURN, EntryKind.SUMMARY]
    assert _texts(await memory.get("s"))[0].endswith("the gist")  # type: ignore[union-attr]
