"""Fencing: a worker presumed dead while it was only stalled (here: SIGSTOP longer than
the dead-after timeout) has its turn adopted by a live worker; when it runs again it
stops before another unit of that turn, so only the unit in flight ran twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

from ostinato.testing.durable_engine import FakeModelServer
from ostinato_dbos._worker import FENCED_EXIT_STATUS
from tests.plugins.dbos.workers import Workers, submit_followed


def stop_holding_no_lock(process: subprocess.Popen[str], database: Path) -> None:
    """SIGSTOP ``process`` while it holds no lock of the SQLite ``database`` (a stopped
    lock holder would stall every other process of the database, not only itself)."""
    with closing(sqlite3.connect(database, timeout=30, isolation_level=None)) as db:
        db.execute("BEGIN EXCLUSIVE")  # no other connection holds a lock now...
        process.send_signal(signal.SIGSTOP)
        os.waitid(os.P_PID, process.pid, os.WSTOPPED | os.WNOWAIT)  # ...when it stops
        db.execute("ROLLBACK")


def test_a_stalled_worker_whose_turn_was_adopted_runs_no_further_unit_of_it(
    workers: Workers, model_server: FakeModelServer
) -> None:
    gate = model_server.gate(("count", "t6", 0))
    stalled = workers.start("w1")
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t6", "tool")
        assert gate.arrived.wait(workers.patience)  # w1 is in the tool call
        stop_holding_no_lock(stalled, workers.database_path)
        gate.release.set()  # w1's answer waits in its socket
        workers.start("w2")  # finds w1 silent, claims it and adopts the turn
        assert handle.result(timeout=workers.patience).text == "done t6"
        assert model_server.started[("model", "t6", 2)] == 1
        stalled.send_signal(signal.SIGCONT)  # w1 finishes its tool call, then stops
        assert stalled.wait(60) == FENCED_EXIT_STATUS
        assert "was presumed dead" in workers.printed(stalled)
        assert follower.kinds()[-1] == "loop_ended"
    started = model_server.started
    assert started[("model", "t6", 1)] == 1
    assert started[("count", "t6", 0)] == 2  # in flight when w1 stalled: ran on both
    assert started[("model", "t6", 2)] == 1  # w1 did not run the next unit
