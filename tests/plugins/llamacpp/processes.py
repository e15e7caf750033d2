"""Looking at processes from the outside: is it alive, wait until it is gone."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ostinato_llamacpp import ServerSpec

__all__ = ["alive", "server_pid", "wait_gone"]


def server_pid(spec: ServerSpec) -> int:
    """The stub's own pid (it writes it once listening)."""
    return int(Path(json.loads(spec.model.read_text())["pid_file"]).read_text())


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except ProcessLookupError:  # it went between opening its stat and reading it
        return False
    except (FileNotFoundError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """Wait until ``pid`` is gone; whether it went in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)
