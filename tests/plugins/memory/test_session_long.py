"""A 200-turn conversation with tools on a small context budget: every request fits, no
tool call is separated from its result, the summarizer runs when the strategy says, and
recall finds a fact from turn 3 — in memory and in SQLite, outside and inside the loop."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from ostinato import AdvisorParams, ChatClient, tool
from ostinato.memory import SessionLog
from ostinato.messages import AssistantMessage, Message, ToolCall, ToolResponseMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_memory import (
    InMemorySessionLog,
    SessionMemory,
    SessionMemoryAdvisor,
    SQLiteSessionLog,
    SummarizeOlderTurns,
    TokenBudget,
    conversation_search_tools,
    estimate_tokens,
    session_blocks,
)
from tests.plugins.memory.harness import INSIDE

TURNS = 200
#: The model's context, in estimated tokens, for the messages of every request.
CONTEXT_BUDGET = 1000
SUMMARIZE_ABOVE = 300
HISTORY_BUDGET = 700


@tool(description="The stock of an item")
def stock(item: str) -> str:
    """How many of ``item`` are left."""
    return f"{item}: {len(item) * 7} left"


def _answer(prompt: Prompt) -> object:
    """The scripted model: asks for one tool per turn, then answers from its result."""
    last = prompt.messages[-1]
    if isinstance(last, UserMessage):
        turn = last.text.split()[1].rstrip(":")
        if "vault" in last.text and "what" in last.text:
            call = ToolCall(
                f"call-{turn}", "conversation_search", json.dumps({"query": "vault code"})
            )
        else:
            call = ToolCall(f"call-{turn}", "stock", json.dumps({"item": f"widget{turn}"}))
        return tool_call_response(call)
    assert isinstance(last, ToolResponseMessage)
    data = last.responses[0].response_data
    return text_response(f"noted: {data if 'vault' in data else data[:40]}")


def _check_pairs(messages: Sequence[Message]) -> None:
    """Every tool response right after the call asking for it, every call answered."""
    for i, message in enumerate(messages):
        if isinstance(message, ToolResponseMessage):
            before = messages[i - 1]
            assert isinstance(before, AssistantMessage) and before.has_tool_calls, messages
            assert {c.id for c in before.tool_calls} == {r.id for r in message.responses}
        if isinstance(message, AssistantMessage) and message.has_tool_calls:
            assert i + 1 < len(messages) and isinstance(messages[i + 1], ToolResponseMessage)


def _log(kind: str, tmp_path: Path) -> SessionLog:
    return InMemorySessionLog() if kind == "memory" else SQLiteSessionLog(tmp_path / "m.sqlite3")


@pytest.mark.parametrize(
    ("store", "order"),
    [("memory", None), ("memory", INSIDE), ("sqlite", None)],
    ids=["in-memory-outside", "in-memory-inside", "sqlite-outside"],
)
async def test_two_hundred_turns_on_a_small_budget(store: str, order: int | None, tmp_path: Path):
    summaries: list[Sequence[Message]] = []

    async def summarize(messages: Sequence[Message]) -> str:
        summaries.append(list(messages))
        return f"summary {len(summaries)} of {len(messages)} messages"

    strategy = SummarizeOlderTurns(summarize, max_tokens=SUMMARIZE_ABOVE, keep_tokens=150)
    memory = SessionMemory(
        _log(store, tmp_path), strategies=[strategy, TokenBudget(HISTORY_BUDGET)]
    )
    placement = {} if order is None else {"order": order}
    advisor = SessionMemoryAdvisor(memory, background_compaction=False, **placement)
    model = ScriptedChatModel(responder=_answer)
    client = (
        ChatClient.builder(model)
        .default_system("You are a shop assistant.")
        .default_tools(stock, *conversation_search_tools(memory))
        .default_advisors(advisor, AdvisorParams.conversation_id("long"))
        .build()
    )
    started = time.perf_counter()
    expected_summaries = 0
    for turn in range(1, TURNS + 1):
        if turn == 3:
            question = f"turn {turn}: remember that the vault code is 4417"
        elif turn == TURNS:
            question = f"turn {turn}: what was the vault code?"
        else:
            question = f"turn {turn}: check the stock of widget{turn}"
        before = len(summaries)
        answer = await client.prompt(question).call().acontent()
        entries = await memory.log.read("long")
        # The strategy is satisfied after each turn: a summary was written iff it asked.
        assert strategy.plan(session_blocks(entries)) is None
        expected_summaries += len(summaries) - before
        assert len(summaries) - before <= 1
    elapsed = time.perf_counter() - started

    for prompt in model.prompts:
        assert estimate_tokens(prompt.messages) <= CONTEXT_BUDGET
        _check_pairs(prompt.messages)
    assert expected_summaries == len(summaries) > 10
    # Recursive: every summary after the first folds the one before it in.
    for k, folded in enumerate(summaries[1:], start=1):
        assert folded[0].text.endswith(f"summary {k} of {len(summaries[k - 1])} messages")
    # Recall: the last turn searched the log and found turn 3, long since summarized.
    assert "4417" in (answer or "")
    hits = await memory.search("long", "vault code")
    assert any("turn 3:" in (h.entry.messages[0].text or "") for h in hits)
    # Nothing was removed from the log.
    turns = [e for e in await memory.log.read("long") if e.kind.value == "turn"]
    assert sum(isinstance(m, UserMessage) for e in turns for m in e.messages) == TURNS
    print(
        f"\n{store} order={order}: {TURNS} turns in {elapsed:.2f}s "
        f"({elapsed / TURNS * 1000:.1f} ms/turn), {len(summaries)} summaries"
    )
    close = getattr(memory.log, "close", None)
    if close is not None:
        close()
