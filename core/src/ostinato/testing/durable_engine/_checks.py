"""The checks of the durable engine kit (see the package's docstring)."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest

from ostinato.durable import DurableEngine, TurnHandle, TurnRequest, TurnStatus, durable_engine
from ostinato.errors import DurableTurnError, TurnLogError
from ostinato.events import LoopEnded, LoopEvent, LoopExitReason, ToolFailureKind, ToolFinished
from ostinato.testing.durable_engine._crash_matrix import CrashMatrix, run_crash_matrix
from ostinato.testing.durable_engine._fake_model import FakeModelServer
from ostinato.testing.durable_engine._ordering import OrderedTurnsChecks
from ostinato.testing.durable_engine._reading import TOOL_TURN, LiveReader, assert_log
from ostinato.testing.durable_engine._steering import SteeringChecks
from ostinato.testing.durable_engine._workers import Workers

__all__ = ["TOOLS", "DurableEngineConformance", "Kit", "worker_environment"]

#: The module of the kit's counting tools, as workers import it.
TOOLS: Final = "ostinato.testing.durable_engine.tools"
_PLAN_TOOLS: Final = {"tool": f"{TOOLS}:count", "approval": f"{TOOLS}:pay"}
#: The approval turn: it stops for the decision (a loop of its own, its text saying it
#: waits, as one piece), then resumes.
_APPROVAL_TURN: Final = (
    *TOOL_TURN[:4],
    "approval_required",
    "text_delta",
    "loop_ended",
    *TOOL_TURN[4:],
)
#: A turn its worker's limits end after one round: the loop's own answer, as one piece.
_LIMITED_TURN: Final = (*TOOL_TURN[:4], "text_delta", "loop_ended")


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


def _alist(events: AsyncIterator[LoopEvent]) -> list[LoopEvent]:
    async def read() -> list[LoopEvent]:
        return [e async for e in events]

    return asyncio.run(read())


def _log(handle: TurnHandle, kinds: tuple[str, ...], text: str | None) -> list[LoopEvent]:
    """The whole log of ``handle``'s turn, checked (see :func:`assert_log`)."""
    events = list(handle.events(timeout=60))
    assert_log(events, handle.id, kinds, text)
    return events


class DurableEngineConformance(OrderedTurnsChecks, SteeringChecks):
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
        _log(handle, TOOL_TURN, "done k1")  # each event once, across the crash
        started = kit.server.started
        assert started[("model", "k1", 1)] == 1  # completed before the crash: not repeated
        assert started[("count", "k1", 0)] == 1
        assert 1 <= started[("model", "k1", 2)] <= 2  # in flight at the crash: at most twice
        assert kit.remembered("k1") == ["k1 tool", "done k1"]

    def test_a_reader_follows_the_log_live_across_a_failover_and_reattaches_by_position(
        self, kit: Kit
    ) -> None:
        """Events read live across a worker's death, nothing lost or repeated: one reader
        follows the turn throughout, another drops its connection before the crash and
        reattaches by position after it; both read exactly the turn's log."""
        gate = kit.server.gate(("piece", "k8", 2))  # the answer's round, one piece sent
        worker = kit.workers.start()
        handle = kit.submit("k8", "tool")
        steady, dropping = LiveReader(handle, 60), LiveReader(handle, 60)
        steady.attach()
        dropping.attach()
        assert gate.arrived.wait(kit.workers.patience)
        for reader in (steady, dropping):  # live: the turn is held in its last round
            reader.wait_for("round_started", 2, kit.workers.patience)
        position = dropping.disconnect()
        kit.workers.kill(worker)  # in the middle of a streamed round
        gate.release.set()
        kit.workers.start()
        dropping.attach()  # reattached by position, while the turn runs again
        assert handle.result(timeout=kit.workers.patience).text == "done k8"
        log = _log(handle, TOOL_TURN, "done k8")
        for reader in (steady, dropping):
            read = [e.to_dict() for e in reader.join(kit.workers.patience)]
            assert read == [e.to_dict() for e in log], (
                f"a reader read {[(e['seq'], e['kind']) for e in read]}; the log holds "
                f"{[(e.seq, e.kind) for e in log]}"
            )
        assert dropping.attachments == 2
        assert [e.seq for e in _alist(handle.aevents(after=position))] == [
            e.seq for e in log[position:]
        ]
        assert 1 <= kit.server.started[("model", "k8", 2)] <= 2
        # Positions a log cannot have, and turns no engine knows, fail at once.
        with pytest.raises(TurnLogError) as past:
            next(iter(handle.events(after=len(log) + 5, timeout=5)))
        assert past.value.reason == "past_end"
        with pytest.raises(DurableTurnError, match="no durable turn"):
            next(iter(kit.engine.turn("no-such-turn").events(timeout=5)))

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
        _log(handle, TOOL_TURN, "done k2")
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
        _log(handle, TOOL_TURN, "done k3")
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
        _log(handle, _APPROVAL_TURN, "done k4")
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
        events = _log(handle, (*TOOL_TURN[:6], "loop_ended"), "")
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
        events = _log(handle, _LIMITED_TURN, answer.text)
        ended = events[-1]
        assert isinstance(ended, LoopEnded)
        assert ended.reason is reason
        assert ended.rounds == 1
        assert answer.text != "done k7"
        assert kit.server.started[("model", "k7", 2)] == kit.server.started[("count", "k7", 0)] == 0

    def test_a_few_runs_of_the_crash_matrix(self, kit: Kit) -> None:
        """A destructive tool never runs twice, and a call killed inside it is surfaced
        as in doubt and resolved by its rule: one batch, one run per rule (see
        :mod:`ostinato.testing.durable_engine._crash_matrix`)."""
        matrix = run_crash_matrix(kit, runs=3, seed=7, batch=3)
        assert matrix.problems() == [], matrix.summary()
        assert matrix.kills >= 1

    @pytest.mark.slow
    def test_the_crash_matrix(self, kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
        """The crash matrix over ``CRASH_MATRIX_RUNS`` randomized runs (200;
        ``CRASH_MATRIX_SEED`` replays a seed; not ``OSTINATO_*``, which the kit clears):
        0 double executions."""
        runs = int(os.environ.get("CRASH_MATRIX_RUNS", "200"))
        seed = int(os.environ.get("CRASH_MATRIX_SEED", random.randrange(1 << 30)))

        def progress(matrix: CrashMatrix) -> None:
            with capsys.disabled():
                print(
                    f"\n{self.engine_name} crash matrix (seed {seed}): {matrix.summary()}, "
                    f"problems: {matrix.problems()}"
                )

        matrix = run_crash_matrix(kit, runs=runs, seed=seed, progress=progress)
        assert matrix.problems() == [], f"seed {seed}: {matrix.summary()}"
        assert len(matrix.runs) == runs
