"""The turn runner of this worker process, as the turn workflow finds it.

A worker passes ostinato and its plugins through Temporal's sandbox (imported once per
process, outside it, as the SDK's own integrations pass their packages through): the
turn workflow runs on the runner the worker built, its client configured once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ostinato.durable import TurnRunner

__all__ = ["configure_runner", "turn_runner"]


class _State:
    runner: TurnRunner | None = None


def configure_runner(runner: TurnRunner | None) -> None:
    """Give this process's turn workflows their runner (``None``: forget it)."""
    _State.runner = runner


def turn_runner() -> TurnRunner:
    """The worker's runner.

    Raises:
        RuntimeError: the process is not a started worker.
    """
    if _State.runner is None:
        raise RuntimeError(
            "a durable turn ran in a process that is not an ostinato worker\n"
            "fix: run turns with `ostinato worker --engine temporal` (or ostinato_temporal.Worker)"
        )
    return _State.runner
