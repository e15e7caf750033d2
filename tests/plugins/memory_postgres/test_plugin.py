"""Clients auto-configured by environment alone remember in PostgreSQL through ``memory-postgres``.

Its entry point, settings and registration: ``tests/plugins/test_memory_store_contract.py``.
"""

from __future__ import annotations

import pytest

import ostinato_memory.plugin as memory_plugin
import ostinato_memory_postgres.plugin as postgres_plugin
from ostinato_memory_postgres import PostgresChatMemoryRepository
from tests.plugins.memory.harness import MODES, check_an_auto_configured_client_remembers

PLUGINS = {"memory": memory_plugin, "memory-postgres": postgres_plugin}


@pytest.mark.parametrize("mode", MODES)
async def test_an_auto_configured_client_remembers_in_postgres(monkeypatch, postgres_url, mode):
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "postgres")
    monkeypatch.setenv("OSTINATO_MEMORY_POSTGRES_URL", postgres_url)
    await check_an_auto_configured_client_remembers(monkeypatch, PLUGINS, mode)
    repository = PostgresChatMemoryRepository(postgres_url)
    assert len(await repository.find_by_conversation_id("me")) == 4
    await repository.aclose()
