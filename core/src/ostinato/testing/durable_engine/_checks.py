"""The checks of the durable engine kit (see the package's docstring)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest

from ostinato.durable import DurableEngine, TurnHandle, TurnRequest, TurnStatus, durable_engine
from ostinato.errors import DurableTurnError
from ostinato.events import LoopEnded, LoopExitReason, ToolFailureKind, ToolFinished
from ostinato.testing.durable_engine._fake_model import FakeModelServer
from ostinato.testing.durable_engine._workers import Workers

__all__ = ["TOOLS", "DurableEngineConformance", "Kit", "worker_environment"]

#: The module of the kit's counting tools, as workers import it.
TOOLS: Final = "ostinato.testing.durable_engine.tools"
_PLAN_TOOLS: Final = {"tool": f"{TOOLS}:count", "approval": f"{TOOLS}:pay"}

#: What a reader sees of a turn with one tool call, whether or not a worker died in it.
TOOL_TURN: Final = [
    "round_started",
    "round_finished",
    "tool_call_requested",
    "tool_started",
    "tool_finished",
    "round_started",
    "round_finished",
    "loop_ended",
]


def worker_environment(server: FakeModelServer, memory_path: Path) -> dict[str, str]:
    """The environment of the kit's workers but the engine's own settings: this process's
    without any ``OSTINATO_*``, the fake model (through the ``openai`` plugin), the
    counting tools' server, and chat memory in SQLite at ``memory_path``."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "DURABLE_KIT_SERVER": server.url,
        "OSTINATO_MODEL": "openai:fake-model",
        "OSTINATO_OPENAI_BASE_URL": f"{server.url}/v1",
        "OSTINATO_OPENAI_API_KEY": "test-key",
        "OSTINATO_OPENAI_MAX_RETRIES": "0",
        "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "default",
        "OSTINATO_MEMORY_ENABLED": "true",
        "OSTINATO_MEMORY_REPOSITORY": "sqlite",
        "OSTINATO_MEMORY_SQLITE_PATH": str(memory_path),
    }


@dataclass
class Kit:
    """What one check works with: the fake model server, the workers, and a submitter's
    engine (opened from the same environment)."""

    server: FakeModelServer
    workers: Workers
    engine: DurableEngine
    memory_path: Path

    def submit(self, turn: str, plan: str) -> TurnHandle:
        """The fake model's turn ``turn`` following ``plan`` (``tool``, ``approval``,
        ``plain``), in a conversation of its own."""
        tools = (_PLAN_TOOLS[plan],) if plan in _PLAN_TOOLS else ()
        return self.engine.submit(TurnRequest(f"{turn} {plan}", conversation_id=turn, tools=tools))

    def remembered(self, conversation: str) -> list[str | None]:
        """The texts chat memory holds for ``conversation``."""
        from ostinato_memory import SQLiteChatMemoryRepository

        repository = SQLiteChatMemoryRepository(self.memory_path)
        return [m.text for m in repository.find_by_conversation_id_sync(conversation)]

    def wait_until(self, condition: Any, what: str) -> None:
        """Wait (within the workers' patience) until ``condition()`` holds."""
        deadline = time.monotonic() + self.workers.patience
        while not condition():
            assert time.monotonic() < deadline, f"waited too long for {what}"
            time.sleep(0.02)


def _kinds(handle: TurnHandle) -> list[str]:
    return [e.kind for e in handle.events(timeout=60)]


class DurableEngineConformance:
    """The kit (see the package's docstring). Subclasses set :attr:`engine_name`, give
    the fixture ``engine_env`` and implement :meth:`cancel`."""

    engine_name: ClassVar[str]
    """The engine's registered name (``--engine NAME``)."""
    worker_options: ClassVar[tuple[str, ...]] = ()
    """More arguments of ``ostinato worker`` (``--poll 0.05``)."""
    plugins: ClassVar[str] = "openai,memory"
    """The plugins the workers load besides the engine's (``OSTINATO_LOAD_PLUGINS``)."""

    def cancel(self, engine: DurableEngine, turn_id: str) -> None:
        """Cancel the turn ``turn_id`` the engine's own way."""
        raise NotImplementedError

    @pytest.fixture
    def kit(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_env: Mapping[str, str]
    ) -> Iterator[Kit]:
        """A fresh fake model server, workers and engine for one check."""
        with FakeModelServer() as server:
            memory = tmp_path / "memory.sqlite3"
            env = {
                **worker_environment(server, memory),
                "OSTINATO_LOAD_PLUGINS": f"{self.plugins},{self.engine_name}",
                **engine_env,
            }
            for name in os.environ:
                if name.startswith("OSTINATO_"):
                    monkeypatch.delenv(name)
            for name, value in env.items():
                monkeypatch.setenv(name, value)
            args = ["--engine", self.engine_name, *self.worker_options]
            with Workers(env, args, Path.cwd()) as workers:
                engine = durable_engine(self.engine_name)
                try:
                    yield Kit(server, workers, engine, memory)
                finally:
                    engine.close()

    def test_killed_in_a_model_round_the_turn_completes_on_a_restarted_worker(
        self, kit: Kit
    ) -> None:
        """A worker killed in a model round: the turn completes on a restarted worker."""
        gate = kit.server.gate(("model", "k1", 2))
        worker = kit.workers.start()
        handle = kit.submit("k1", "tool")
        assert gate.arrived.wait(kit.workers.patience)
        kit.workers.kill(worker)  # in the second model round, after the tool ran
        gate.release.set()
        kit.workers.start()
        assert handle.result(timeout=kit.workers.patience).text == "done k1"
        assert _kinds(handle) == TOOL_TURN  # each event once, across the crash
        started = kit.server.started
        assert started[("model", "k1", 1)] == 1  # completed before the crash: not repeated
        assert started[("count", "k1", 0)] == 1
        assert 1 <= started[("model", "k1", 2)] <= 2  # in flight at the crash: at most twice
        assert kit.remembered("k1") == ["k1 tool", "done k1"]

    def test_killed_in_a_tool_call_the_turn_completes_on_another_live_worker(
        self, kit: Kit
    ) -> None:
        """A worker killed in a tool call: the turn completes on another live worker."""
        gate = kit.server.gate(("count", "k2", 0))
        kit.workers.start()
        kit.workers.start()
        handle = kit.submit("k2", "tool")
        assert gate.arrived.wait(kit.workers.patience)
        killed = kit.workers.by_pid(kit.server.pids[("count", "k2", 0)][0])
        kit.workers.kill(killed)
        gate.release.set()
        assert handle.result(timeout=kit.workers.patience).text == "done k2"
        assert _kinds(handle) == TOOL_TURN
        live = [p for p in kit.workers.processes if p is not killed]
        assert all(p.poll() is None for p in live), "the live worker stopped"
        started = kit.server.started
        assert started[("model", "k2", 1)] == 1
        assert 1 <= started[("count", "k2", 0)] <= 2  # in flight at the crash...
        assert len(set(kit.server.keys)) == 1  # ...with the same idempotency key
        assert started[("model", "k2", 2)] == 1
        assert kit.remembered("k2") == ["k2 tool", "done k2"]

    def test_killed_between_units_the_turn_completes_each_unit_once(self, kit: Kit) -> None:
        """A worker killed right after a unit ended: the turn completes, each unit once."""
        worker = kit.workers.start()
        handle = kit.submit("k3", "tool")
        kit.wait_until(lambda: kit.server.finished[("count", "k3", 0)] == 1, "the tool call")
        kit.workers.kill(worker)  # the tool ended; the next unit has not started or has
        kit.workers.start()
        assert handle.result(timeout=kit.workers.patience).text == "done k3"
        assert _kinds(handle) == TOOL_TURN
        started = kit.server.started
        assert started[("model", "k3", 1)] == 1
        assert 1 <= started[("count", "k3", 0)] <= 2
        assert 1 <= started[("model", "k3", 2)] <= 2
        assert kit.remembered("k3") == ["k3 tool", "done k3"]

    def test_a_turn_waiting_for_approval_resumes_on_ostinato_approve_after_every_worker_restarted(
        self, kit: Kit
    ) -> None:
        """A waiting turn outlives its worker and ``ostinato approve`` resumes it; a tool
        no worker resolves fails its turn with the error naming it."""
        worker = kit.workers.start()
        handle = kit.submit("k4", "approval")
        kit.wait_until(lambda: handle.pending() is not None, "the turn to wait for approval")
        assert handle.status is TurnStatus.WAITING_FOR_APPROVAL
        kit.workers.kill(worker)  # while it waits
        kit.workers.start()
        approved = kit.workers.command("approve", handle.id[:8], "--engine", self.engine_name)
        assert approved.returncode == 0, approved
        assert approved.stdout.strip() == f"approved 1 call(s) of {handle.id}"
        assert handle.result(timeout=kit.workers.patience).text == "done k4"
        assert _kinds(handle) == [
            "round_started",
            "round_finished",
            "tool_call_requested",
            "approval_required",
            "loop_ended",
            "tool_started",
            "tool_finished",
            "round_started",
            "round_finished",
            "loop_ended",
        ]
        started = kit.server.started
        assert started[("model", "k4", 1)] == started[("pay", "k4", 0)] == 1
        assert started[("model", "k4", 2)] == 1
        assert kit.remembered("k4") == ["k4 approval", "done k4"]
        # A tool no worker can resolve fails the turn with the error naming it.
        unknown = kit.engine.submit(
            TurnRequest("k5 plain", conversation_id="k5", tools=("no_such:x",))
        )
        with pytest.raises(DurableTurnError, match=r"ToolResolutionError: .*'no_such:x'"):
            unknown.result(timeout=kit.workers.patience)
        assert unknown.status is TurnStatus.FAILED

    def test_a_turn_cancelled_in_a_tool_call_ends_cancelled(self, kit: Kit) -> None:
        """A turn cancelled in a tool call ends cancelled, its events as in process."""
        gate = kit.server.gate(("count", "k6", 0))
        kit.workers.start()
        handle = kit.submit("k6", "tool")
        assert gate.arrived.wait(kit.workers.patience)
        self.cancel(kit.engine, handle.id)
        gate.release.set()
        events = list(handle.events(timeout=60))
        assert [e.kind for e in events] == [*TOOL_TURN[:5], "loop_ended"]
        finished, ended = events[-2:]
        assert isinstance(finished, ToolFinished)
        assert finished.failure is ToolFailureKind.CANCELLED
        assert isinstance(ended, LoopEnded)
        assert ended.reason is LoopExitReason.CANCELLED
        kit.wait_until(lambda: handle.status is TurnStatus.CANCELLED, "the turn to end cancelled")

    @pytest.mark.parametrize(
        ("setting", "reason"),
        [
            ("OSTINATO_TOOLS__MAX_ITERATIONS", LoopExitReason.MAX_ITERATIONS),
            ("OSTINATO_TOOLS__MAX_MODEL_REQUESTS", LoopExitReason.BUDGET),
        ],
    )
    def test_the_worker_s_limits_end_a_durable_turn_as_in_process(
        self, kit: Kit, setting: str, reason: LoopExitReason
    ) -> None:
        """The iteration cap and the usage limits end a durable turn as in process."""
        kit.workers.env[setting] = "1"  # one model round: the tool it asks for never runs
        kit.workers.start()
        handle = kit.submit("k7", "tool")
        answer = handle.result(timeout=kit.workers.patience)
        events = list(handle.events(timeout=60))
        assert [e.kind for e in events] == [*TOOL_TURN[:3], "loop_ended"]
        ended = events[-1]
        assert isinstance(ended, LoopEnded)
        assert ended.reason is reason
        assert ended.rounds == 1
        assert answer.text != "done k7"
        assert kit.server.started[("model", "k7", 2)] == kit.server.started[("count", "k7", 0)] == 0
