"""The DBOS engine passes the durable engine conformance kit, on a SQLite system
database of each check's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.durable import DurableEngine
from ostinato.testing.durable_engine import DurableEngineConformance
from ostinato_dbos import DbosEngine
from tests.plugins.dbos.workers import DEAD_AFTER_SECONDS, PROJECT


class TestDbosConformance(DurableEngineConformance):
    engine_name = "dbos"
    worker_options = ("--poll", "0.05")

    @pytest.fixture
    def engine_env(self, tmp_path: Path) -> dict[str, str]:
        return {
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "OSTINATO_DBOS_PROJECT": PROJECT,
            "OSTINATO_DBOS_DATABASE_URL": f"sqlite:///{tmp_path / 'dbos.sqlite3'}",
            "OSTINATO_DBOS_HEARTBEAT_SECONDS": "0.2",
            "OSTINATO_DBOS_DEAD_AFTER_SECONDS": str(DEAD_AFTER_SECONDS),
            "OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS": "0",
        }

    def cancel(self, engine: DurableEngine, turn_id: str) -> None:
        assert isinstance(engine, DbosEngine)
        engine.client.cancel_workflow(turn_id)
