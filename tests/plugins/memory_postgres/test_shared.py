"""PostgreSQL as the memory of many processes: four worker processes on the same 50
conversations, the server stopped mid-turn, a connection dropped from the pool."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from ostinato import AdvisorParams
from ostinato.messages import AssistantMessage, UserMessage
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_postgres import PostgresChatMemoryRepository
from tests.fakes.shared_memory import (
    StoreSpec,
    check_every_turn_once,
    conversation_ids,
    run_workers,
    turn_with_the_store_stopped,
)
from tests.servers import PostgresServer


async def test_four_processes_continue_the_same_conversations_every_turn_once(postgres_url):
    run_workers(StoreSpec("postgres", postgres_url))
    repository = PostgresChatMemoryRepository(postgres_url)
    assert sorted(await repository.find_conversation_ids()) == sorted(conversation_ids())
    for conversation in conversation_ids():
        check_every_turn_once(conversation, await repository.find_by_conversation_id(conversation))
    await repository.aclose()


async def test_the_server_stopped_mid_turn_fails_the_turn_and_stores_none_of_it(
    postgres_server: PostgresServer, postgres_url
):
    repository = PostgresChatMemoryRepository(postgres_url, timeout=1)
    try:
        client = await turn_with_the_store_stopped(
            repository, postgres_server.stop, ChatMemoryStoreUnavailableError
        )
    finally:
        postgres_server.start()
    # The server is back: the next turn works, and the failed one left nothing.
    await client.prompt("third").advisors(AdvisorParams.conversation_id("faulty")).call().acontent()
    assert await repository.find_by_conversation_id("faulty") == [
        UserMessage("first"),
        AssistantMessage("first answer"),
        UserMessage("third"),
        AssistantMessage("third answer"),
    ]
    await repository.aclose()


async def test_a_connection_dropped_from_the_pool_is_replaced(postgres_server, postgres_url):
    # Only this repository's backend is terminated, found by its application_name: other
    # connections to the shared server (another repository's pool refilling, the
    # server's own readiness probe) are not this test's to kill. The termination is
    # awaited (up to 10 s), so the pool meets a dead connection, not one still dying.
    name = f"dropped-{uuid.uuid4().hex[:12]}"
    repository = PostgresChatMemoryRepository(
        f"{postgres_url}&application_name={name}", pool_min_size=1, pool_max_size=1
    )
    await repository.save_all("c", [UserMessage("kept")])
    with psycopg.connect(postgres_server.url, autocommit=True, connect_timeout=10) as admin:
        killed = admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000))"
            " FROM pg_stat_activity WHERE application_name = %s",
            (name,),
        ).fetchone()
    assert killed == (1,)
    assert await repository.find_by_conversation_id("c") == [UserMessage("kept")]
    await repository.save_all("c", [UserMessage("changed")])
    assert await repository.find_by_conversation_id("c") == [UserMessage("changed")]
    await repository.aclose()


async def test_a_server_back_after_an_outage_is_used_at_once(
    postgres_server: PostgresServer, postgres_url
):
    # While the server is down, psycopg's pool retries with a delay that doubles (1, 2, 4,
    # 8 s ...): after an 8 s outage its next attempt is about 15 s after the first. A use
    # right after the server is back must not wait for it (the repository's timeout is 1 s).
    repository = PostgresChatMemoryRepository(
        postgres_url, timeout=1, pool_min_size=1, pool_max_size=1
    )
    await repository.save_all("outage", [UserMessage("before")])
    postgres_server.stop()
    try:
        with pytest.raises(ChatMemoryStoreUnavailableError):
            await repository.find_by_conversation_id("outage")
        await asyncio.sleep(8)  # the outage
    finally:
        postgres_server.start()
    assert await repository.find_by_conversation_id("outage") == [UserMessage("before")]
    await repository.aclose()
