"""Worker processes for durable turns' tests: real ``ostinato worker`` processes of any
engine (``--engine NAME`` and its options), each tied to the test process (they die
with it), started, killed (SIGKILL) and stopped (SIGTERM) by the tests.

How long the tests wait: a wait holds the engine's own work (a queue poll, a few units,
a recovery after a kill), bounded by :data:`PROGRAM_SECONDS`, and often the work of a
fresh process, which no constant bounds: starting Python and importing ostinato, its
plugins and the engine's library is CPU-bound, and on a machine whose cores are shared
it takes as long as the load makes it (a DBOS worker starts in about 5 s on 2 idle
cores, in over 40 s at load 9). So each test measures it: :attr:`Workers.patience` adds
twice the slowest worker start seen in the test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Self

__all__ = ["PROGRAM_SECONDS", "Workers"]

#: What the engine's own work in one wait may take, even on a loaded machine: a guard
#: against a hang (a recovery after a kill included; the work takes well under a second
#: on an idle machine).
PROGRAM_SECONDS: Final = 60.0

# Starts ``python -S -c LAUNCHER PARENT_PID COMMAND ARGS...``: the command dies with the
# process that started it (Linux), even when that one is SIGKILLed.
_LAUNCHER: Final = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)
#: How many of the last lines a worker printed the kit keeps (:attr:`Workers.output`).
_KEPT: Final = 1000
#: What a worker prints once it takes turns: ``ostinato worker <executor id>: taking...``.
_STARTED: Final = "taking turns"


class Workers:
    """Starts workers of one engine with ``env`` (as a context manager, kills those still
    running when it exits).

    Args:
        env: the workers' whole environment (:attr:`env`: a test may change it before
            it starts a worker).
        args: the arguments after ``ostinato worker`` (``--engine NAME`` and its options).
        cwd: the workers' working directory.
    """

    def __init__(self, env: Mapping[str, str], args: Sequence[str], cwd: Path) -> None:
        self.env = dict(env)
        self.args = list(args)
        self.cwd = cwd
        self.processes: list[subprocess.Popen[str]] = []
        #: The last lines each worker printed after it started, by process id.
        self.output: dict[int, deque[str]] = {}
        #: The longest a worker took to start in this test, in seconds.
        self.slowest_start = 0.0
        self._readers: dict[int, threading.Thread] = {}
        self._by_executor: dict[str, subprocess.Popen[str]] = {}

    def start(self, executor_id: str | None = None, *extra: str) -> subprocess.Popen[str]:
        """A worker taking turns (returns once it said so, however long its start takes:
        see :attr:`patience`), under ``--executor-id executor_id`` (``None``: the
        engine's default id, which it says: :meth:`executor_of`), with ``extra``
        arguments after :attr:`args`."""
        began = time.monotonic()
        chosen = ["--executor-id", executor_id] if executor_id is not None else []
        argv = [sys.executable, "-m", "ostinato.cli", "worker", *self.args, *chosen, *extra]
        if sys.platform.startswith("linux"):
            argv = [sys.executable, "-S", "-c", _LAUNCHER, str(os.getpid()), *argv]
        process = subprocess.Popen(
            argv,
            env=self.env,
            cwd=self.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.processes.append(process)
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line)
            if _STARTED in line:
                self.slowest_start = max(self.slowest_start, time.monotonic() - began)
                said = line.removeprefix("ostinato worker ").partition(":")[0]
                self._by_executor[said] = process
                # Read on, or a worker that prints much (a long traceback, retried)
                # would block once the pipe is full.
                tail = self.output[process.pid] = deque(maxlen=_KEPT)
                reader = threading.Thread(target=tail.extend, args=(process.stdout,), daemon=True)
                self._readers[process.pid] = reader
                reader.start()
                return process
        name = "" if executor_id is None else f" {executor_id}"
        raise AssertionError(f"the worker{name} did not start:\n{''.join(seen)}")

    @property
    def patience(self) -> float:
        """Seconds a test waits for a turn (or an ``ostinato`` command) to get somewhere.

        :data:`PROGRAM_SECONDS` for the engine's work, plus twice the slowest worker
        start seen so far (:attr:`slowest_start`): the wait may also hold the work of a
        fresh process, which is of the same kind as a worker's start and at most as
        much. A fresh worker's first turn, a replay after a restart or an adoption
        included, builds the worker's client and imports its model's modules (measured
        on DBOS: 0.7 of the worker's start); an ``ostinato`` command imports less than a
        worker.
        """
        return PROGRAM_SECONDS + 2 * self.slowest_start

    def by_pid(self, pid: int) -> subprocess.Popen[str]:
        """The worker whose process id is ``pid``."""
        return next(p for p in self.processes if p.pid == pid)

    def executor_of(self, process: subprocess.Popen[str]) -> str:
        """The executor id ``process`` said it runs under."""
        return next(e for e, p in self._by_executor.items() if p is process)

    def by_executor(self, executor_id: str) -> subprocess.Popen[str]:
        """The worker last started that said it runs under ``executor_id``."""
        return self._by_executor[executor_id]

    def command(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``ostinato ARGS...`` run with the workers' environment."""
        return subprocess.run(
            [sys.executable, "-m", "ostinato.cli", *args],
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=self.patience,
        )

    @staticmethod
    def kill(process: subprocess.Popen[str]) -> None:
        """SIGKILL: no cleanup runs."""
        process.send_signal(signal.SIGKILL)
        process.wait(30)

    def printed(self, process: subprocess.Popen[str], timeout: float = 60) -> str:
        """What the worker printed after it started (its last 1000 lines), once
        it exited (waited for ``timeout`` seconds): its pipe is read by the kit, so read
        it here rather than from ``process.stdout``."""
        process.wait(timeout)
        reader = self._readers.get(process.pid)
        if reader is not None:
            reader.join(timeout)  # the pipe ends with the process
        return "".join(self.output.get(process.pid, ()))

    def terminate(self, process: subprocess.Popen[str]) -> str:
        """SIGTERM, and what the worker printed after it started (:meth:`printed`)."""
        process.send_signal(signal.SIGTERM)
        return self.printed(process)

    def kill_all(self) -> None:
        """SIGKILL every worker still running."""
        for process in self.processes:
            if process.poll() is None:
                self.kill(process)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Kill the workers still running."""
        self.kill_all()
