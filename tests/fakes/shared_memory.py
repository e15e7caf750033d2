"""Scenarios every shared memory store (PostgreSQL, Redis) must pass, with real processes.

:func:`run_workers` starts four worker processes (``spawn``: a fresh interpreter each),
each with its own repository and ``ChatClient``, that continue the same conversations in
turns; :func:`check_every_turn_once` then checks each conversation holds every turn once,
in each worker's order, whole. :func:`turn_with_the_store_stopped` stops the store while a
tool runs mid-turn. The store is named by a :class:`StoreSpec` (picklable), so the workers
make their own repository from it.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ostinato import AdvisorParams, ChatClient, tool
from ostinato.memory import ChatMemoryRepository
from ostinato.messages import Message, ToolCall
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory

__all__ = [
    "StoreSpec",
    "check_every_turn_once",
    "conversation_ids",
    "run_workers",
    "turn_with_the_store_stopped",
]

WORKERS = 4
CONVERSATIONS = 50
ROUNDS = 3


@dataclass(frozen=True)
class StoreSpec:
    """How a process makes the repository: ``postgres`` or ``redis``, its URL, options."""

    kind: str
    url: str
    key_prefix: str = ""

    def make(self) -> ChatMemoryRepository:
        """A new repository of this store."""
        if self.kind == "postgres":
            from ostinato_memory_postgres import PostgresChatMemoryRepository

            return PostgresChatMemoryRepository(self.url, pool_max_size=2)
        from ostinato_memory_redis import RedisChatMemoryRepository

        return RedisChatMemoryRepository(self.url, key_prefix=self.key_prefix)


def conversation_ids() -> list[str]:
    """The conversations the workers continue."""
    return [f"conversation-{i}" for i in range(CONVERSATIONS)]


def _label(worker: int, round_: int, conversation: str) -> str:
    return f"w{worker} r{round_} {conversation}"


def worker(spec: StoreSpec, number: int) -> int:
    """One worker process: every round, one turn in every conversation. Returns the turns."""
    repository = spec.make()
    answers = [f"answer {_label(number, r, c)}" for r in range(ROUNDS) for c in conversation_ids()]
    memory = MessageWindowChatMemory(repository, max_messages=4 * WORKERS * ROUNDS)
    client = (
        ChatClient.builder(ScriptedChatModel(answers))
        .default_advisors(MessageChatMemoryAdvisor(memory))
        .build()
    )
    turns = 0
    for r in range(ROUNDS):
        for c in conversation_ids():
            client.prompt(f"question {_label(number, r, c)}").advisors(
                AdvisorParams.conversation_id(c)
            ).call().content()
            turns += 1
    close = getattr(repository, "close", None)
    if callable(close):
        close()
    return turns


def run_workers(spec: StoreSpec) -> None:
    """Run :data:`WORKERS` worker processes at once on ``spec``'s store; wait for them."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(WORKERS, mp_context=context) as pool:
        done = list(pool.map(worker, [spec] * WORKERS, range(WORKERS)))
    assert done == [ROUNDS * CONVERSATIONS] * WORKERS


def check_every_turn_once(conversation: str, messages: list[Message]) -> None:
    """Every worker's every round once, whole (question then its answer), in round order."""
    texts = [m.text for m in messages]  # type: ignore[union-attr]
    assert len(texts) == 2 * WORKERS * ROUNDS, (conversation, len(texts))
    questions = texts[0::2]
    for question, answer in zip(questions, texts[1::2]):
        assert question is not None and question.startswith("question ")
        assert answer == "answer " + question.removeprefix("question "), (question, answer)
    expected = {
        f"question {_label(w, r, conversation)}" for w in range(WORKERS) for r in range(ROUNDS)
    }
    assert sorted(questions) == sorted(expected)  # each once, none missing
    for w in range(WORKERS):
        mine = [q for q in questions if q is not None and q.startswith(f"question w{w} ")]
        assert mine == [f"question {_label(w, r, conversation)}" for r in range(ROUNDS)]


async def turn_with_the_store_stopped(
    repository: ChatMemoryRepository, stop: Callable[[], Any], error: type[Exception]
) -> ChatClient:
    """Turn 1 is stored; during turn 2 a tool stops the store: the turn fails with
    ``error`` and is not stored. Returns the client (its model answers turn 3 with
    ``third answer``): the caller restarts the store and runs turn 3 of ``faulty``."""

    @tool(description="Stops the memory store")
    def stop_the_store() -> str:
        stop()
        return json.dumps("stopped")

    model = ScriptedChatModel(
        [
            "first answer",
            tool_call_response(ToolCall("call-1", "stop_the_store", "{}")),
            "second answer",
            "third answer",
        ]
    )
    memory = MessageWindowChatMemory(repository, max_messages=50)
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    conversation = AdvisorParams.conversation_id("faulty")
    await client.prompt("first").advisors(conversation).call().acontent()
    try:
        await client.prompt("second").advisors(conversation).tools(stop_the_store).call().acontent()
    except error:
        return client
    raise AssertionError(f"the turn with the store stopped did not raise {error.__name__}")
