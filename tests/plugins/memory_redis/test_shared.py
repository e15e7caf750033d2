"""Redis as the memory of many processes: four worker processes on the same 50
conversations, the server stopped mid-turn, a connection dropped from the pool, expiry."""

from __future__ import annotations

import pytest
import redis
import redis.asyncio

from ostinato import AdvisorParams
from ostinato.messages import AssistantMessage, UserMessage
from ostinato_memory import ChatMemoryRepositoryError, ChatMemoryStoreUnavailableError
from tests.fakes.shared_memory import (
    StoreSpec,
    check_every_turn_once,
    conversation_ids,
    run_workers,
    turn_with_the_store_stopped,
)
from tests.plugins.memory_redis.conftest import fresh_prefix
from tests.servers import RedisServer


async def test_four_processes_continue_the_same_conversations_every_turn_once(
    redis_server, open_repository
):
    prefix = fresh_prefix()
    repository = open_repository(key_prefix=prefix)
    run_workers(StoreSpec("redis", redis_server.url, prefix))
    assert sorted(await repository.find_conversation_ids()) == sorted(conversation_ids())
    for conversation in conversation_ids():
        check_every_turn_once(conversation, await repository.find_by_conversation_id(conversation))


async def test_the_server_stopped_mid_turn_fails_the_turn_and_stores_none_of_it(
    redis_server: RedisServer, open_repository
):
    # Without persistence a restarted Redis is empty: the first turn is written again
    # after the restart, and the check is that the failed turn left nothing.
    repository = open_repository(timeout=1)
    try:
        client = await turn_with_the_store_stopped(
            repository, redis_server.stop, ChatMemoryStoreUnavailableError
        )
    finally:
        redis_server.start()
    assert await repository.find_by_conversation_id("faulty") == []
    await client.prompt("third").advisors(AdvisorParams.conversation_id("faulty")).call().acontent()
    assert await repository.find_by_conversation_id("faulty") == [
        UserMessage("third"),
        AssistantMessage("third answer"),
    ]


async def test_a_write_that_fails_midway_stores_nothing(redis_server: RedisServer, open_repository):
    repository = open_repository(timeout=1)
    await repository.save_all("c", [UserMessage("kept"), AssistantMessage("kept")])
    probe = redis.Redis.from_url(redis_server.url)
    probe.config_set("maxmemory", "1mb")  # the next large write is refused inside EXEC
    try:
        with pytest.raises(ChatMemoryRepositoryError, match=r"OOM|maxmemory"):
            await repository.save_all("c", [UserMessage("x" * 4_000_000)])
    finally:
        probe.config_set("maxmemory", "0")
        probe.close()
    assert await repository.find_by_conversation_id("c") == [
        UserMessage("kept"),
        AssistantMessage("kept"),
    ]


async def test_a_connection_dropped_from_the_pool_is_replaced(
    redis_server: RedisServer, open_repository
):
    repository = open_repository()
    await repository.save_all("c", [UserMessage("kept")])
    probe = redis.Redis.from_url(redis_server.url)
    killed = probe.client_kill_filter(_type="normal", skipme=True)
    probe.close()
    assert killed >= 1
    assert await repository.find_by_conversation_id("c") == [UserMessage("kept")]
    await repository.save_all("c", [UserMessage("changed")])
    assert await repository.find_by_conversation_id("c") == [UserMessage("changed")]


async def test_an_expired_conversation_leaves_the_listing(
    redis_server: RedisServer, open_repository
):
    prefix = fresh_prefix()
    repository = open_repository(key_prefix=prefix, ttl=60)
    await repository.save_all("old", [UserMessage("old")])
    await repository.save_all("new", [UserMessage("new")])
    probe = redis.asyncio.Redis.from_url(redis_server.url)
    assert 0 < await probe.ttl(repository.key("old")) <= 60
    await probe.delete(repository.key("old"))  # what expiry does when the TTL runs out
    assert await repository.find_conversation_ids() == ["new"]
    assert await probe.zrange(f"{prefix}conversations", 0, -1) == [b"new"]
    assert [s.conversation_id for s in await repository.find_recent_conversations(10)] == ["new"]
    await probe.aclose()
