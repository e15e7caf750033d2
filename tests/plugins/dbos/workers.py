"""Worker processes of the durable-turn tests: real ``ostinato worker`` processes on a
shared system database, each tied to the test process (they die with it), started,
killed (SIGKILL) and stopped (SIGTERM) by the tests.

How long the tests wait: a wait for a turn holds the program's own work (a queue poll,
a few units, an adoption: ``DEAD_AFTER_SECONDS``, a heartbeat and a poll), bounded by
:data:`PROGRAM_SECONDS`, and often the work of a fresh process, which no constant
bounds: starting Python and importing ostinato, its plugins and DBOS is CPU-bound, and
on a machine whose cores are shared it takes as long as the load makes it (a worker
starts in about 5 s on the 2 cores of the development machine, in over 40 s at load 9).
So each test measures it: :attr:`Workers.patience` adds to :data:`PROGRAM_SECONDS` twice
the slowest worker start seen in the test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Self

from ostinato.durable import TurnRequest
from ostinato.events import LoopEvent, withdrawn
from ostinato_dbos import DbosEngine, DbosSettings, DbosTurnHandle
from ostinato_mcp._lifetime import guarded_command
from tests.plugins.dbos.fake_model import FakeModelServer

__all__ = ["PROGRAM_SECONDS", "Follower", "Workers", "submit_followed", "turn_request"]

ROOT = Path(__file__).resolve().parents[3]
TOOLS = "tests.plugins.dbos.durable_tools"
#: The tool each plan of the fake model calls (see ``fake_model``).
PLAN_TOOLS = {
    "tool": f"{TOOLS}:count",
    "approval": f"{TOOLS}:pay",
    "progress": f"{TOOLS}:steps",
}
#: A worker silent this long is presumed dead and its turns adopted (what the adoption
#: tests wait for after a kill). Wide over the 0.2 s heartbeat: a live worker starved of
#: CPU on a loaded machine must not be presumed dead in the middle of a unit, which would
#: then run twice (on it and on its adopter) and fail the tests' exactly-once counts.
DEAD_AFTER_SECONDS = 4.0
#: The project of the tests' workers and submitters.
PROJECT = "ostinato-tests"
#: What the program's own work in one wait of these tests may take, even on a loaded
#: machine: a guard against a hang (the work itself takes well under a second idle).
PROGRAM_SECONDS = 60.0


class Workers:
    """Starts workers sharing ``database_url`` and the fake model ``server`` (as a context
    manager, kills those still running when it exits)."""

    def __init__(self, tmp_path: Path, server: FakeModelServer, database_url: str) -> None:
        self.database_url = database_url
        self.database_path = Path(database_url.removeprefix("sqlite:///"))  # on SQLite
        self.memory_path = tmp_path / "memory.sqlite3"
        self.settings = DbosSettings(
            project=PROJECT,
            database_url=database_url,  # type: ignore[arg-type]
            heartbeat_seconds=0.2,
            dead_after_seconds=DEAD_AFTER_SECONDS,
            shutdown_grace_seconds=0,
        )
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
            "PYTHONPATH": str(ROOT),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "DBOS_TEST_SERVER": server.url,
            "OSTINATO_LOAD_PLUGINS": "openai,memory,dbos",
            "OSTINATO_MODEL": "openai:fake-model",
            "OSTINATO_OPENAI_BASE_URL": f"{server.url}/v1",
            "OSTINATO_OPENAI_API_KEY": "test-key",
            "OSTINATO_OPENAI_MAX_RETRIES": "0",
            "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "default",
            "OSTINATO_MEMORY_ENABLED": "true",
            "OSTINATO_MEMORY_REPOSITORY": "sqlite",
            "OSTINATO_MEMORY_SQLITE_PATH": str(self.memory_path),
            "OSTINATO_DBOS_PROJECT": PROJECT,  # the same queue, whatever the test's directory
            "OSTINATO_DBOS_DATABASE_URL": database_url,
            "OSTINATO_DBOS_HEARTBEAT_SECONDS": "0.2",
            "OSTINATO_DBOS_DEAD_AFTER_SECONDS": str(DEAD_AFTER_SECONDS),
            "OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS": "0",
        }
        self.processes: list[subprocess.Popen[str]] = []
        #: The longest a worker took to start in this test, in seconds.
        self.slowest_start = 0.0
        self._by_executor: dict[str, subprocess.Popen[str]] = {}

    def start(self, executor_id: str | None, *extra: str) -> subprocess.Popen[str]:
        """A worker taking turns (returns once it said so, however long its start
        takes: see :attr:`patience`); ``None``: without ``--executor-id``, its default
        id is what it said (:meth:`executor_of`)."""
        began = time.monotonic()
        args = ["-m", "ostinato.cli", "worker", "--poll", "0.05"]
        if executor_id is not None:
            args += ["--executor-id", executor_id]
        command, argv = guarded_command(sys.executable, [*args, *extra])
        process = subprocess.Popen(
            [command, *argv],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.processes.append(process)
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line)
            if "taking turns" in line:
                self.slowest_start = max(self.slowest_start, time.monotonic() - began)
                said = line.removeprefix("ostinato worker ").partition(":")[0]
                self._by_executor[said] = process
                return process
        raise AssertionError(f"the worker {executor_id} did not start:\n{''.join(seen)}")

    @property
    def patience(self) -> float:
        """Seconds a test waits for a turn (or an ``ostinato`` command) to get somewhere.

        :data:`PROGRAM_SECONDS` for the program's work, plus twice the slowest worker
        start seen so far (:attr:`slowest_start`): the wait may also hold the work of a
        fresh process, which is of the same kind as a worker's start and at most as
        much. A fresh worker's first turn, a replay after a restart or an adoption
        included, builds the worker's client and imports its model's modules (measured:
        0.7 of the worker's start); an ``ostinato`` command imports less than a worker.
        """
        return PROGRAM_SECONDS + 2 * self.slowest_start

    def executor_of(self, process: subprocess.Popen[str]) -> str:
        """The executor id ``process`` said it runs under."""
        return next(e for e, p in self._by_executor.items() if p is process)

    def running(self, engine: DbosEngine, turn_id: str) -> subprocess.Popen[str]:
        """The worker (the last one started under its executor id) running turn ``turn_id``."""
        executor_id = engine.client.retrieve_workflow(turn_id).get_status().executor_id
        return self._by_executor[executor_id]

    def command(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``ostinato ARGS...`` run with the workers' environment."""
        return subprocess.run(
            [sys.executable, "-m", "ostinato.cli", *args],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=self.patience,
        )

    @staticmethod
    def kill(process: subprocess.Popen[str]) -> None:
        """SIGKILL: no cleanup runs."""
        process.send_signal(signal.SIGKILL)
        process.wait(30)

    @staticmethod
    def terminate(process: subprocess.Popen[str]) -> str:
        """SIGTERM, and what the worker printed until it exited."""
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
        return out

    def engine(self) -> DbosEngine:
        """A submitter's engine on the same database."""
        return DbosEngine(self.settings, poll_seconds=0.05)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Kill the workers still running."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(30)


class Follower:
    """Follows a turn's events from the submitting side, in a thread, from the moment
    it is made: ``kinds()`` once the turn ended (what a reader saw, as ``kind round``).

    It waits for each event as long as it takes: between two events a turn may wait for
    the test itself (a decision sent by an ``ostinato approve`` process, a worker killed
    and another started), which takes as long as starting processes does on this
    machine (over 70 s between two batches at load 9). ``kinds()`` bounds the wait
    instead, once the turn ended: its stream is complete then."""

    def __init__(self, engine: DbosEngine, turn_id: str) -> None:
        self.events: list[LoopEvent] = []
        self.error: BaseException | None = None
        self._handle = engine.turn(turn_id)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self.events.extend(self._handle.events())
        except BaseException as error:
            self.error = error

    def kinds(self) -> list[str]:
        """The events' kinds (and rounds) after the turn ended, less the pieces of
        streamed rounds (how many depends on the chunks) and what was withdrawn; their
        positions are checked: contiguous from 1."""
        self._thread.join(PROGRAM_SECONDS)  # the rest of a complete log: one read
        assert not self._thread.is_alive(), "the events of the turn did not end"
        assert self.error is None, self.error
        assert [e.seq for e in self.events] == list(range(1, len(self.events) + 1))
        return [
            f"{e.kind} {getattr(e, 'round', '')}".strip()
            for e in withdrawn(self.events)
            if e.kind not in ("text_delta", "tool_call_delta")
        ]


def turn_request(turn: str, plan: str) -> TurnRequest:
    """The fake model's turn ``turn`` following ``plan`` (``tool`` calls ``count``,
    ``approval`` calls ``pay``), in a conversation of its own."""
    return TurnRequest(f"{turn} {plan}", conversation_id=turn, tools=(PLAN_TOOLS[plan],))


def submit_followed(engine: DbosEngine, turn: str, plan: str) -> tuple[DbosTurnHandle, Follower]:
    """Submits :func:`turn_request` and follows the turn's events from now on."""
    handle = engine.submit(turn_request(turn, plan))
    return handle, Follower(engine, handle.id)
