"""``ostinato logs`` on PostgreSQL: most recently changed first, show one, ``--json``."""

from __future__ import annotations

from ostinato_memory_postgres import PostgresChatMemoryRepository
from tests.plugins.memory.logs_check import check_logs_lists_by_recency_and_shows_one


def test_logs_lists_by_recency_and_shows_one(monkeypatch, postgres_url):
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "postgres")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", postgres_url)
    check_logs_lists_by_recency_and_shows_one(PostgresChatMemoryRepository(postgres_url))
