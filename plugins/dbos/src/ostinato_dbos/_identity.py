"""A worker's default executor id: stable per project and host, unique among the workers
running at once.

DBOS recovers a worker's own pending turns as soon as it starts again *under the same
executor id*; a worker with a fresh id has to wait until a live worker presumes the old
one dead (``OSTINATO_DBOS_DEAD_AFTER_SECONDS``). So a worker without an explicit id takes
``<host>-<project>-<slot>``, where the slot is the lowest one no running worker of the
project on this host holds: each slot is a lock file (``workers/<slot>.lock`` in the
project's state directory) that its worker keeps locked while it lives. The operating
system releases the lock when the process ends, however it ends, so a restarted worker
takes the slot (and the id) of the one that died, and a second worker running beside
the first takes the next slot. Where file locks are not available (no ``fcntl``), the id
is ``<host>-<project>-<process id>``, as unique but not stable.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import IO, Final

__all__ = ["LOCKS_DIR", "WorkerIdentity", "claim_identity"]

#: The folder of the slot locks, in the project's state directory.
LOCKS_DIR: Final = "workers"
#: Slots tried before giving up (as many workers of one project on one host at once).
_MAX_SLOTS: Final = 1024


class WorkerIdentity:
    """An executor id, and the lock that makes it this process's (:meth:`release` it
    when the worker stops)."""

    __slots__ = ("_lock", "executor_id")

    def __init__(self, executor_id: str, lock: IO[bytes] | None = None) -> None:
        self.executor_id: Final = executor_id
        self._lock = lock

    def release(self) -> None:
        """Give the slot back (closing the file releases its lock)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __repr__(self) -> str:
        return f"<WorkerIdentity {self.executor_id}>"


def _host() -> str:
    return socket.gethostname().split(".")[0] or "host"


def claim_identity(state_dir: Path, project: str) -> WorkerIdentity:
    """The lowest free slot's identity for a worker of ``project`` on this host, its lock
    held (see the module).

    Raises:
        OSError: the lock folder cannot be created, or every slot is held.
    """
    prefix = f"{_host()}-{project}"
    try:
        import fcntl
    except ImportError:  # no POSIX file locks: unique, not stable
        return WorkerIdentity(f"{prefix}-{os.getpid()}")
    folder = state_dir / LOCKS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for slot in range(_MAX_SLOTS):
        lock = (folder / f"{slot}.lock").open("ab")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()  # a running worker holds this slot
            continue
        except BaseException:
            lock.close()
            raise
        return WorkerIdentity(f"{prefix}-{slot}", lock)
    raise OSError(
        f"{_MAX_SLOTS} workers of the project {project!r} already run on this host "
        f"(every lock in {folder} is held)\n"
        "fix: stop some, or give this one an id of its own (--executor-id or "
        "OSTINATO_DBOS_EXECUTOR_ID)"
    )
