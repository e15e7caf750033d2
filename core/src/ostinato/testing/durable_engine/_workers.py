"""Worker processes of the durable engine kit: real ``ostinato worker --engine NAME``
processes, each tied to the test process (they die with it), started, killed (SIGKILL)
and stopped (SIGTERM) by the checks.

How long the checks wait: a wait holds the engine's own work (a queue poll, a few units,
a recovery after a kill), bounded by :data:`PROGRAM_SECONDS`, and often the work of a
fresh process, which no constant bounds on a loaded machine: :attr:`Workers.patience`
adds twice the slowest worker start seen in the check.
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
#: against a hang (a recovery after a kill included).
PROGRAM_SECONDS: Final = 60.0

# Starts ``python -S -c LAUNCHER PARENT_PID COMMAND ARGS...``: the command dies with the
# process that started it (Linux), even when that one is SIGKILLed.
_LAUNCHER: Final = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "if os.getppid() != int(sys.argv[1]): os._exit(1)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


class Workers:
    """Starts workers of one engine with ``env`` (as a context manager, kills those still
    running when it exits).

    Args:
        env: the workers' whole environment.
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
        #: The longest a worker took to start in this check, in seconds.
        self.slowest_start = 0.0

    def start(self) -> subprocess.Popen[str]:
        """A worker taking turns (returns once it said so)."""
        began = time.monotonic()
        argv = [sys.executable, "-m", "ostinato.cli", "worker", *self.args]
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
            if "taking turns" in line:
                self.slowest_start = max(self.slowest_start, time.monotonic() - began)
                # Read on, or a worker that prints much (a long traceback, retried)
                # would block once the pipe is full.
                tail = self.output[process.pid] = deque(maxlen=200)
                threading.Thread(target=tail.extend, args=(process.stdout,), daemon=True).start()
                return process
        raise AssertionError(f"the worker did not start:\n{''.join(seen)}")

    @property
    def patience(self) -> float:
        """Seconds a check waits for a turn (or a command) to get somewhere."""
        return PROGRAM_SECONDS + 2 * self.slowest_start

    def by_pid(self, pid: int) -> subprocess.Popen[str]:
        """The worker whose process id is ``pid``."""
        return next(p for p in self.processes if p.pid == pid)

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

    def kill_all(self) -> None:
        """SIGKILL every worker still running."""
        for process in self.processes:
            if process.poll() is None:
                self.kill(process)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill_all()
