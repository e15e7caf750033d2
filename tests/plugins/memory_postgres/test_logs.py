"""``ostinato logs`` on PostgreSQL: most recently changed first, show one, ``--json``."""

from __future__ import annotations

import io
import json

from ostinato.testing.memory_conformance import every_message_type, turn
from ostinato_memory._logs_command import run_logs_command
from ostinato_memory_postgres import PostgresChatMemoryRepository


def test_logs_lists_by_recency_and_shows_one(monkeypatch, postgres_url):
    repository = PostgresChatMemoryRepository(postgres_url)
    repository.save_all_sync("older", turn("1"))
    repository.save_all_sync("newer", every_message_type())
    repository.close()
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "postgres")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", postgres_url)

    out = io.StringIO()
    assert run_logs_command(["--json"], out) == 0
    listed = json.loads(out.getvalue())
    assert [(c["conversation_id"], c["message_count"]) for c in listed] == [
        ("newer", 5),
        ("older", 2),
    ]
    assert all(c["updated_at"] for c in listed)

    out = io.StringIO()
    assert run_logs_command(["show", "newer"], out) == 0
    assert 'tool call weather({"city": "Paris"}) [call_1]' in out.getvalue()
