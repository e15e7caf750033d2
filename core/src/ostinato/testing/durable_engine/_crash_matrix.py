"""The kit's crash matrix: durable turns calling a destructive tool, on real worker
processes killed (SIGKILL) at every point inside and around the tool, counted by the
tool's own side effect (:mod:`ostinato.testing.durable_effects`).

Each run is one turn: a rule (how the tool resolves a call left in doubt: ``reconcile``,
``approve`` or ``fail``) and a point where its worker dies: inside the tool, before or
after its effect (the worker kills itself there, once per turn); or ``around``: no point
of its own — the runs of a batch share one worker, so every kill lands each other turn of
the batch wherever it is (the model round before the call, the in-doubt mark, the record
of the outcome, the round after), and each batch also gets one kill at a random time. A
killed worker is started again and the turns go on. The check decides for the
``approve`` runs as a careful person would: run it again only when the effect did not
happen (it looks at the journal).

What must hold for every run: the effect happened at most once (0 double executions);
a call killed inside the tool (an ``enter`` line of a process without its ``exit``) was
surfaced as in doubt (an ``in_doubt`` event with the tool's rule); and the turn ended as
its rule says: answered with the effect done once (``reconcile``, ``approve``), or, for
``fail``, either answered so or failed with ``ToolInDoubtError`` after an in-doubt event.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ostinato.durable import TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError
from ostinato.events import ToolInDoubt

if TYPE_CHECKING:
    from ostinato.testing.durable_engine._checks import Kit

__all__ = ["POINTS", "RULES", "CrashMatrix", "CrashRun", "run_crash_matrix"]

_TOOLS: Final = "ostinato.testing.durable_effects"
#: The in-doubt rules, one destructive tool each.
RULES: Final = ("reconcile", "approve", "fail")
#: Where a run's worker dies (see the module's docstring).
POINTS: Final = ("before_effect", "after_effect", "around")
_ENDED: Final = (TurnStatus.SUCCEEDED, TurnStatus.FAILED, TurnStatus.CANCELLED)


@dataclass
class CrashRun:
    """One turn of the matrix and what became of it."""

    turn: str
    rule: str
    point: str
    status: TurnStatus | None = None
    error: str = ""
    effects: int = 0
    killed_inside: bool = False
    in_doubt: list[str] = field(default_factory=list)


@dataclass
class CrashMatrix:
    """The runs, and the kills and decisions they took."""

    runs: list[CrashRun] = field(default_factory=list)
    kills: int = 0
    decisions: Counter[str] = field(default_factory=Counter)

    def problems(self) -> list[str]:
        """What went wrong, one line per run (empty: every rule held)."""
        found = []
        for run in self.runs:
            what = f"{run.turn} ({run.rule}, {run.point})"
            if run.effects > 1:
                found.append(f"{what}: the effect ran {run.effects} times")
            if run.killed_inside and not run.in_doubt:
                found.append(f"{what}: killed inside the tool, never surfaced as in doubt")
            if any(rule != run.rule for rule in run.in_doubt):
                found.append(f"{what}: resolved by {run.in_doubt}, not its rule")
            if run.rule == "fail" and run.status is TurnStatus.FAILED:
                if not run.in_doubt or "ToolInDoubtError" not in run.error:
                    found.append(f"{what}: failed without an in-doubt call: {run.error}")
            elif run.status is not TurnStatus.SUCCEEDED or run.effects != 1:
                found.append(f"{what}: ended {run.status} with {run.effects} effect(s) {run.error}")
        return found

    def summary(self) -> str:
        """The counts, one line."""
        in_doubt = Counter(run.rule for run in self.runs if run.in_doubt)
        failed = sum(1 for run in self.runs if run.status is TurnStatus.FAILED)
        doubles = sum(1 for run in self.runs if run.effects > 1)
        inside = sum(1 for run in self.runs if run.killed_inside)
        return (
            f"{len(self.runs)} runs, {self.kills} kills ({inside} inside the tool), in doubt "
            f"by rule {dict(in_doubt)}, decisions {dict(self.decisions)}, {failed} failed by "
            f"rule, {doubles} double executions"
        )


def run_crash_matrix(
    kit: Kit,
    runs: int,
    seed: int,
    batch: int = 20,
    progress: Callable[[CrashMatrix], None] | None = None,
) -> CrashMatrix:
    """``runs`` turns in batches of ``batch`` (plans drawn from ``seed``); ``progress``
    is called with the matrix so far after each batch."""
    rng = random.Random(seed)
    root = kit.memory_path.parent / "effects"
    (root / "plans").mkdir(parents=True, exist_ok=True)
    kit.workers.env["DURABLE_KIT_EFFECTS"] = str(root)
    matrix = CrashMatrix()
    done = 0
    while done < runs:
        size = min(batch, runs - done)
        planned = []
        for n in range(size):
            turn = f"r{done + n}"
            rule, point = RULES[(done + n) % 3], rng.choice(POINTS)
            (root / "plans" / turn).write_text(f"{point} {rng.uniform(0.0, 0.2):.3f}")
            planned.append(CrashRun(turn, rule, point))
        _run_batch(kit, root, planned, rng, matrix)
        matrix.runs.extend(planned)
        done += size
        if progress is not None:
            progress(matrix)
    return matrix


def _journal(root: Path) -> list[list[str]]:
    path = root / "journal"
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def _run_batch(
    kit: Kit, root: Path, planned: list[CrashRun], rng: random.Random, matrix: CrashMatrix
) -> None:
    workers = kit.workers
    worker = workers.start()
    handles = {
        run.turn: kit.engine.submit(
            TurnRequest(
                f"{run.turn} {run.rule}",
                conversation_id=run.turn,
                tools=(f"{_TOOLS}:pay_{run.rule}",),
            )
        )
        for run in planned
    }
    kill_at = time.monotonic() + rng.uniform(0.1, 1.5)
    deadline = time.monotonic() + workers.patience * 4
    open_turns = set(handles)
    decided: set[tuple[str, str]] = set()
    while open_turns:
        assert time.monotonic() < deadline, f"turns {sorted(open_turns)} did not end"
        if kill_at and time.monotonic() >= kill_at and worker.poll() is None:
            workers.kill(worker)  # the batch's kill at a random time
            kill_at = 0
        if worker.poll() is not None:
            matrix.kills += 1
            worker = workers.start()  # the turns go on
        for turn in sorted(open_turns):
            handle = handles[turn]
            status = handle.status
            if status in _ENDED:
                open_turns.discard(turn)
            elif status is TurnStatus.WAITING_FOR_APPROVAL:
                pending = handle.pending()
                if pending is not None and (turn, pending.to_json()) not in decided:
                    decided.add((turn, pending.to_json()))
                    journal = _journal(root)  # a careful person looks first
                    run_again = not any(line[:2] == ["effect", turn] for line in journal)
                    try:
                        handle.decide({pending.calls[0].id: run_again})
                    except DurableTurnError:
                        continue  # decided already: the turn moved on meanwhile
                    matrix.decisions["run again" if run_again else "deny"] += 1
        time.sleep(0.05)
    journal = _journal(root)
    for run in planned:
        handle = handles[run.turn]
        run.status = handle.status
        try:
            handle.result(timeout=workers.patience)
        except DurableTurnError as error:
            run.error = str(error)
        run.effects = sum(1 for line in journal if line[:2] == ["effect", run.turn])
        entered = {line[3] for line in journal if line[:2] == ["enter", run.turn]}
        exited = {line[3] for line in journal if line[:2] == ["exit", run.turn]}
        run.killed_inside = bool(entered - exited)
        events = handle.events(timeout=workers.patience)
        run.in_doubt = [e.rule for e in events if isinstance(e, ToolInDoubt)]
    if worker.poll() is None:
        workers.kill(worker)
