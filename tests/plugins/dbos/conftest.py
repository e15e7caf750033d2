"""The durable-turn tests' fixtures: the fake model server, and workers on SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.dbos.fake_model import FakeModelServer
from tests.plugins.dbos.workers import Workers


@pytest.fixture
def model_server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def workers(tmp_path: Path, model_server: FakeModelServer) -> Iterator[Workers]:
    """Workers on a SQLite system database of this test's own (all killed at the end)."""
    with Workers(tmp_path, model_server, f"sqlite:///{tmp_path / 'dbos.sqlite3'}") as started:
        yield started
