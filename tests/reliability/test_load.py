"""Load: 2,000 conversations through one client, 100 at a time, 10% of model calls failing.

One ``ChatClient`` (OpenAI adapter over loopback, SQLite memory, a sync tool) runs every
conversation; each has two turns, one through the tool and one answered at once, half of
them streamed. The fault server fails 10% of the model calls in random ways (seeded, and
decided per request so the outcome does not depend on scheduling): retryable statuses,
resets before and during the response, malformed bodies, requests the server refuses.

Expected: every turn ends in an answer or a typed ``ModelError``; no conversation sees
another's messages (the server checks every request, the client every answer); SQLite
holds exactly the completed turns; and the process's memory stays level from batch to
batch once warm. The server runs in a child process, so neither its work nor its memory
counts here.

Memory is measured after each batch (after a full collection) three ways, cheaply enough
to run on every CI run (tracemalloc would slow the test fourfold): objects that live only
as long as a turn (responses, requests, prompts, tasks, coroutines) must not pile up;
allocated blocks (``sys.getallocatedblocks``) must stay level within a small noise
allowance; resident memory may not creep.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

from ostinato import AdvisorParams, ChatClient, tool
from ostinato.errors import ModelError
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)
from ostinato_openai import OpenAIChatModel, RetryPolicy
from tests.reliability.flaky import ChildServer
from tests.reliability.resources import assert_nothing_left, finalised, snapshot

CONVERSATIONS = 2000
CONCURRENCY = 100
BATCHES = 4
FAILURE_RATE = 0.10
SEED = 20240613
#: Objects that live no longer than a turn: none may survive a batch.
PER_TURN_TYPES = frozenset(
    {
        "ChatResponse",
        "ChatClientResponse",
        "ChatClientRequest",
        "Prompt",
        "Generation",
        "Task",
        "Future",
        "coroutine",
        "async_generator",
        "Response",
        "Request",
        "ReceivedRequest",
    }
)
#: How far allocated blocks may drift between the first and the last batch: noise (pooled
#: connections, generators being finalised) plus one block per turn. Measured: a few
#: dozen blocks over 3,000 turns; a turn that leaked its response would add dozens each.
NOISE_BLOCKS = 10_000
BLOCKS_PER_TURN = 1
#: The most resident memory may grow from the first batch to the last.
RSS_GROWTH = 16 << 20


@tool(description="Echo the text back")
def echo(text: str) -> str:
    """The tool of every first turn."""
    return f"echoed: {text}"


TURNS = ((1, "c{}-t1?", "echoed: c{}-t1?"), (2, "c{}-t2", "answer to c{}-t2"))


async def converse(
    client: ChatClient, number: int, answered: bytearray, failures: Counter[str]
) -> None:
    """Two turns of conversation ``c<number>``: bit ``turn - 1`` of ``answered[number]``
    says the turn was answered; ``failures`` counts the typed errors by class. (Nothing
    that grows per turn is kept, so the memory measurement sees the library only.)"""
    conversation = f"c{number}"
    mode = "stream" if number % 2 else "call"
    for turn, question, expected in TURNS:
        text = question.format(number)
        spec = client.prompt().user(text).advisors(AdvisorParams.conversation_id(conversation))
        try:
            if mode == "call":
                answer = await spec.call().acontent()
            else:
                answer = "".join([piece async for piece in spec.stream().acontent()])
        except ModelError as error:
            failures[type(error).__name__] += 1
            continue
        assert answer == expected.format(number), (conversation, answer)
        answered[number] |= 1 << (turn - 1)


def remembered(number: int, answered: int) -> list[Message]:
    """What memory must hold for conversation ``number``: its answered turns, in order."""
    messages: list[Message] = []
    for turn, question, expected in TURNS:
        if answered & (1 << (turn - 1)):
            messages += [
                UserMessage(question.format(number)),
                AssistantMessage(expected.format(number)),
            ]
    return messages


def _without_usage(message: Message) -> Message:
    if not isinstance(message, AssistantMessage):
        return message
    kept = {k: v for k, v in message.metadata.items() if k != "usage"}
    return dataclasses.replace(message, metadata=kept)


def memory_level() -> tuple[int, int, Counter[str]]:
    """Allocated blocks, resident bytes and the live per-turn objects, after a collection."""
    gc.collect()
    live = Counter(
        name for obj in gc.get_objects() if (name := type(obj).__name__) in PER_TURN_TYPES
    )
    with open("/proc/self/statm") as statm:
        resident = int(statm.read().split()[1]) * 4096
    return sys.getallocatedblocks(), resident, live


async def test_2000_conversations_100_at_a_time_with_10_percent_failing(tmp_path: Path):
    server = ChildServer(FAILURE_RATE, SEED)
    before = snapshot()
    model = OpenAIChatModel(
        model="load-model",
        api_key="sk-load",
        base_url=server.base_url,
        timeout=httpx.Timeout(30.0),
        retry_policy=RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.004),
    )
    repository = SQLiteChatMemoryRepository(tmp_path / "load.sqlite3")
    memory = MessageWindowChatMemory(repository, max_messages=100)
    client = (
        ChatClient.builder(model)
        .default_advisors(MessageChatMemoryAdvisor(memory))
        .default_tools(echo)
        .build()
    )
    answered = bytearray(CONVERSATIONS)
    failures: Counter[str] = Counter()
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(number: int) -> None:
        async with gate:
            await converse(client, number, answered, failures)

    async def run_batch(numbers: range) -> None:
        async with asyncio.timeout(120), asyncio.TaskGroup() as group:
            for number in numbers:
                group.create_task(one(number))

    per_batch = CONVERSATIONS // BATCHES
    levels: list[tuple[int, int, Counter[str]]] = []
    started = time.monotonic()
    try:
        for batch in range(BATCHES):
            await run_batch(range(batch * per_batch, (batch + 1) * per_batch))
            levels.append(memory_level())
    finally:
        elapsed = time.monotonic() - started
        await model.aclose()
        stats = server.stats()
        server.stop()

    # Every turn ended in an answer or a typed error (converse re-raises anything else),
    # and the faults were really injected.
    turns = 2 * CONVERSATIONS
    answers = sum(bin(flags).count("1") for flags in answered)
    assert answers + sum(failures.values()) == turns
    injected = stats["injected"]
    assert 0.04 * turns < sum(injected.values()) < 0.25 * turns, injected
    assert 0 < sum(failures.values()) < 0.1 * turns, failures
    assert not stats["cross_talk"], stats["cross_talk"][:5]

    # SQLite holds exactly the completed turns, in order, and nothing else.
    remembering = {f"c{n}" for n, flags in enumerate(answered) if flags}
    assert set(repository.find_conversation_ids_sync()) == remembering
    for number, flags in enumerate(answered):
        stored = repository.find_by_conversation_id_sync(f"c{number}")
        # An answer may be stored with what its turn cost (when the model reported it);
        # the rest is exactly the answered turns.
        assert [_without_usage(m) for m in stored] == remembered(number, flags)
    repository.close()

    # No growth per turn once warm: nothing of a turn outlives it, and the levels stay
    # within the bounded caches.
    blocks = [level[0] for level in levels]
    resident = [level[1] for level in levels]
    first = sum(levels[0][2].values())  # what other tests of the session still hold
    for _, _, live in levels[1:]:
        # A few may be in flight: httpx leaves the generators of a closed response body to
        # asyncio's finaliser, which closes them in a task of its own.
        assert sum(live.values()) <= first + 30, f"per-turn objects outlived their batch: {live}"
    measured_turns = 2 * per_batch * (BATCHES - 1)
    assert blocks[-1] - blocks[0] < NOISE_BLOCKS + BLOCKS_PER_TURN * measured_turns, blocks
    assert resident[-1] - resident[0] < RSS_GROWTH, resident

    assert stats["idle"], "the server still had connections open after the model closed"
    await finalised()
    assert_nothing_left(before)
    print(
        f"\n{CONVERSATIONS} conversations in {elapsed:.1f} s; injected {injected}; "
        f"failed turns {dict(failures)}; allocated blocks after each batch {blocks}; "
        f"resident MiB {[r >> 20 for r in resident]}"
    )
