"""The Temporal tests' fixtures: one development server per module, on loopback; and
``turns``: a worker in this process (on the fake model of the durable engine kit, with
chat memory in SQLite) and a submitter's engine, for checks that hold a workflow task
(:class:`Holding`)."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import ostinato.testing.durable_engine.tools  # noqa: F401  # imported once, passed through
from ostinato.events import LoopEnded, LoopEvent
from ostinato.testing.durable_engine import FakeModelServer, worker_environment
from ostinato_temporal import TemporalEngine, TemporalSettings, Worker
from tests.servers import TemporalServer


def temporal_environment(
    server: FakeModelServer, memory: Path, temporal: TemporalServer, queue: str
) -> dict[str, str]:
    """The environment of a worker of these tests: the kit's (the fake model, chat memory
    at ``memory``), the development server, a task queue of its own named after
    ``queue``, quick heartbeats and no shutdown grace."""
    return {
        **worker_environment(server, memory),
        "OSTINATO_LOAD_PLUGINS": "openai,memory,temporal",
        "OSTINATO_TEMPORAL_ADDRESS": temporal.address,
        "OSTINATO_TEMPORAL_TASK_QUEUE": f"{queue}-{uuid.uuid4().hex[:8]}",
        "OSTINATO_TEMPORAL_HEARTBEAT_SECONDS": "2",
        "OSTINATO_TEMPORAL_SHUTDOWN_GRACE_SECONDS": "0",
    }


def use_environment(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """Make ``env`` this process's ``OSTINATO_*`` settings (and no others)."""
    for name in os.environ:
        if name.startswith("OSTINATO_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def temporal_server() -> Iterator[TemporalServer]:
    with TemporalServer() as server:
        yield server


@dataclass
class Turns:
    """The fake model, a submitter's engine, and the memory the worker writes."""

    server: FakeModelServer
    engine: TemporalEngine
    memory_path: Path

    def remembered(self, conversation: str) -> list[str | None]:
        from ostinato_memory import SQLiteChatMemoryRepository

        repository = SQLiteChatMemoryRepository(self.memory_path)
        return [m.text for m in repository.find_by_conversation_id_sync(conversation)]


class Holding:
    """A listener that holds the workflow task telling the first ``LoopEnded`` (of the
    turn :meth:`arm` named, else of any turn) up to 1.5 s, within Temporal's 2 s deadlock
    limit, until the test has sent its message."""

    def __init__(self) -> None:
        self.ending = threading.Event()
        self.sent = threading.Event()
        self.turn_id: str | None = None

    def arm(self, turn_id: str) -> None:
        """Hold the ``LoopEnded`` of the turn ``turn_id`` next."""
        self.ending, self.sent, self.turn_id = threading.Event(), threading.Event(), turn_id

    def __call__(self, event: LoopEvent) -> None:
        if not isinstance(event, LoopEnded) or self.ending.is_set():
            return
        if self.turn_id is None or event.turn_id == self.turn_id:
            self.ending.set()
            self.sent.wait(1.5)


@pytest.fixture
def holding() -> Holding:
    return Holding()


@pytest.fixture
def turns(
    temporal_server: TemporalServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    holding: Holding,
) -> Iterator[Turns]:
    with FakeModelServer() as server:
        memory = tmp_path / "memory.sqlite3"
        use_environment(monkeypatch, temporal_environment(server, memory, temporal_server, "steer"))
        worker = Worker(TemporalSettings(), listeners=[holding])
        worker.start()
        engine = TemporalEngine()
        try:
            yield Turns(server, engine, memory)
        finally:
            engine.close()
            worker.stop(0)
