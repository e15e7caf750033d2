"""Durable turns on Postgres: a real server on loopback, a queue several worker
processes consume, and a worker killed mid-turn whose turn another worker adopts. The
full throughput measurement (200 turns over 1, 2 and 4 workers) is
``python -m tests.plugins.dbos.scale``; this runs a small version of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.scale import fresh_database_url, run_scale
from tests.plugins.dbos.workers import Workers, turn_request
from tests.servers import PostgresServer


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


@pytest.fixture
def pg_workers(
    tmp_path: Path, model_server: FakeModelServer, postgres: PostgresServer
) -> Iterator[Workers]:
    with Workers(tmp_path, model_server, fresh_database_url(postgres)) as started:
        yield started


def test_two_workers_share_the_queue_and_every_unit_runs_once(
    pg_workers: Workers, model_server: FakeModelServer
) -> None:
    model_server.latency = 0.1
    run = run_scale(pg_workers, model_server, count=2, turns=12, concurrency=4)
    assert run.turns == 12 and run.seconds > 0


def test_a_killed_worker_s_turn_is_adopted_by_the_other_one(
    pg_workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("count", "p1", 0))
    pg_workers.start("w1")
    pg_workers.start("w2")
    with pg_workers.engine() as engine:
        handle = engine.submit(turn_request("p1", "tool"))
        assert gate.arrived.wait(pg_workers.patience)
        pg_workers.kill(pg_workers.running(engine, handle.id))
        gate.release.set()
        assert handle.result(timeout=pg_workers.patience).text == "done p1"
    assert model_server.started[("model", "p1", 1)] == 1
    assert model_server.started[("count", "p1", 0)] == 2
    assert model_server.started[("model", "p1", 2)] == 1
