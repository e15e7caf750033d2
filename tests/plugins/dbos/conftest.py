"""The durable-turn tests' fixtures: the fake model server, and workers on SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.workers import Workers


@pytest.fixture(autouse=True)
def only_the_dbos_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace installs a second durable engine (Temporal): these tests, and the
    ``ostinato`` commands they run in process, load DBOS alone (as the workers do)."""
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "openai,memory,dbos")


@pytest.fixture
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def workers(tmp_path: Path, model_server: FakeModelServer) -> Iterator[Workers]:
    """Workers on a SQLite system database of this test's own (all killed at the end)."""
    with Workers(tmp_path, model_server, f"sqlite:///{tmp_path / 'dbos.sqlite3'}") as started:
        yield started
