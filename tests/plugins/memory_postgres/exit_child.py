"""Run in a child process: use a PostgreSQL repository, then exit without closing it.

``python exit_child.py URL MODE``: MODE ``sync`` runs the operations on ostinato's
private loop, ``async`` in ``asyncio.run``, ``both`` on the private loop and then in two
``asyncio.run`` loops one after the other (each loop gets its own pool, the later ones
with the schema already checked, so they exit while their pools are still opening
connections). Each operation prints its count of messages, or ``failed:`` and the
error's message; stderr must stay empty."""

from __future__ import annotations

import asyncio
import sys

from ostinato.messages import UserMessage
from ostinato.runtime import run_sync
from ostinato_memory_postgres import PostgresChatMemoryRepository


async def work(repository: PostgresChatMemoryRepository) -> None:
    try:
        await repository.save_all("c1", [UserMessage("hi")])
        print(len(await repository.find_by_conversation_id("c1")), flush=True)
    except Exception as error:
        print(f"failed: {error}", flush=True)


def main(url: str, mode: str) -> None:
    repository = PostgresChatMemoryRepository(url, timeout=2, pool_min_size=4)
    if mode in ("sync", "both"):
        run_sync(work(repository))
    if mode in ("async", "both"):
        asyncio.run(work(repository))
    if mode == "both":
        asyncio.run(work(repository))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
