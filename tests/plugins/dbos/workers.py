"""Worker processes of the durable-turn tests: the kit's workers
(:class:`ostinato.testing.durable_engine.Workers`) on DBOS, sharing a system database and
the kit's fake model server, and a follower of a turn's events.

How long the tests wait (:attr:`Workers.patience`) is the kit's: the engine's own work,
bounded by ``PROGRAM_SECONDS``, plus twice the slowest worker start seen in the test.
Here the engine's work includes an adoption after a kill: :data:`DEAD_AFTER_SECONDS`, a
heartbeat and a poll."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from ostinato.durable import TurnRequest
from ostinato.events import LoopEvent, withdrawn
from ostinato.testing.durable_engine import PROGRAM_SECONDS, FakeModelServer, worker_environment
from ostinato.testing.durable_engine import Workers as KitWorkers
from ostinato_dbos import DbosEngine, DbosSettings, DbosTurnHandle

__all__ = ["PROGRAM_SECONDS", "Follower", "Workers", "submit_followed", "turn_request"]

ROOT = Path(__file__).resolve().parents[3]
TOOLS = "tests.plugins.dbos.durable_tools"
#: The tool each plan of the fake model calls (see ``FakeModelServer``).
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


class Workers(KitWorkers):
    """The kit's workers on DBOS (``--poll 0.05``), sharing ``database_url`` and the fake
    model ``server``, with chat memory in SQLite under ``tmp_path`` (as a context
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
        env = {
            **worker_environment(server, self.memory_path),
            "PYTHONPATH": str(ROOT),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "DBOS_TEST_SERVER": server.url,  # for the tests' own tools (``durable_tools``)
            "OSTINATO_LOAD_PLUGINS": "openai,memory,dbos",
            "OSTINATO_DBOS_PROJECT": PROJECT,  # the same queue, whatever the test's directory
            "OSTINATO_DBOS_DATABASE_URL": database_url,
            "OSTINATO_DBOS_HEARTBEAT_SECONDS": "0.2",
            "OSTINATO_DBOS_DEAD_AFTER_SECONDS": str(DEAD_AFTER_SECONDS),
            "OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS": "0",
        }
        super().__init__(env, ["--poll", "0.05"], ROOT)

    def running(self, engine: DbosEngine, turn_id: str) -> subprocess.Popen[str]:
        """The worker (the last one started under its executor id) running turn ``turn_id``."""
        executor_id = engine.client.retrieve_workflow(turn_id).get_status().executor_id
        assert executor_id is not None, f"no executor has taken the turn {turn_id} yet"
        return self.by_executor(executor_id)

    def engine(self) -> DbosEngine:
        """A submitter's engine on the same database."""
        return DbosEngine(self.settings, poll_seconds=0.05)


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
