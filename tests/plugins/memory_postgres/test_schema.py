"""The PostgreSQL schema: created on first use, migrated from version 1, refused when newer
or foreign, and created once by repositories starting together."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from ostinato.messages import UserMessage
from ostinato.testing.memory_conformance import every_message_type, turn
from ostinato_memory import NewerSchemaError, NotAMemoryDatabaseError, encode_message
from ostinato_memory_postgres import MIGRATIONS, SCHEMA_VERSION, PostgresChatMemoryRepository


def _version(url: str) -> str:
    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT value FROM ostinato_memory_meta WHERE key = 'schema_version'"
        ).fetchone()
    assert row is not None
    return str(row[0])


async def test_first_use_creates_the_current_schema(postgres_url):
    repository = PostgresChatMemoryRepository(postgres_url)
    assert await repository.find_conversation_ids() == []
    assert _version(postgres_url) == str(SCHEMA_VERSION) == "3"
    await repository.aclose()


async def test_a_version_1_database_is_migrated_with_its_conversations(postgres_url):
    version, statements = MIGRATIONS[0]
    assert version == 1
    stored = {"a": every_message_type(), "b": turn("b")}
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)  # type: ignore[arg-type]
        for conversation_id, messages in stored.items():
            for position, message in enumerate(messages):
                connection.execute(
                    "INSERT INTO ostinato_memory_messages VALUES (%s, %s, %s, %s)",
                    (
                        conversation_id,
                        position,
                        message.message_type.value,
                        encode_message(conversation_id, position, message),
                    ),
                )
    assert _version(postgres_url) == "1"
    repository = PostgresChatMemoryRepository(postgres_url)
    assert sorted(await repository.find_conversation_ids()) == ["a", "b"]
    assert await repository.find_by_conversation_id("a") == stored["a"]
    recent = await repository.find_recent_conversations(10)
    assert {(s.conversation_id, s.message_count) for s in recent} == {("a", 5), ("b", 2)}
    assert _version(postgres_url) == "3"
    await repository.update("b", lambda messages: [*messages, UserMessage("after")])
    assert len(await repository.find_by_conversation_id("b")) == 3
    await repository.aclose()


async def test_a_newer_schema_is_refused_untouched(postgres_url):
    repository = PostgresChatMemoryRepository(postgres_url)
    await repository.save_all("c", turn("1"))
    await repository.aclose()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            "UPDATE ostinato_memory_meta SET value = '99' WHERE key = 'schema_version'"
        )
    newer = PostgresChatMemoryRepository(postgres_url)
    with pytest.raises(NewerSchemaError, match="schema version 99"):
        await newer.find_by_conversation_id("c")
    await newer.aclose()
    assert _version(postgres_url) == "99"


async def test_foreign_tables_are_refused_untouched(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE ostinato_memory_messages (x int)")
    repository = PostgresChatMemoryRepository(postgres_url)
    with pytest.raises(NotAMemoryDatabaseError, match="no ostinato_memory_meta"):
        await repository.save_all("c", turn("1"))
    await repository.aclose()


async def test_repositories_starting_together_create_the_schema_once(postgres_url):
    repositories = [PostgresChatMemoryRepository(postgres_url) for _ in range(6)]
    await asyncio.gather(*(r.save_all(f"c{i}", turn(str(i))) for i, r in enumerate(repositories)))
    assert sorted(await repositories[0].find_conversation_ids()) == [f"c{i}" for i in range(6)]
    for repository in repositories:
        await repository.aclose()
