"""The guard: a tiny process between ostinato and ``llama-server`` so none is orphaned.

Run as ``python -m ostinato_llamacpp._guard COMMAND...`` with a pipe on its stdin. It
starts COMMAND and stops it (SIGTERM, then SIGKILL after a grace period) as soon as the
pipe reaches end of file: when ostinato closes it on purpose, and equally when the
ostinato process dies in any way, even by SIGKILL, because the kernel closes the pipe
then. On Linux the server also gets ``PR_SET_PDEATHSIG``, so killing the guard itself
kills the server. The guard exits with the server's exit status (``128 + signal`` when
a signal ended it). It imports only the standard library.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Final

__all__ = ["GRACE_SECONDS", "main"]

#: How long the server has to exit after SIGTERM before it is killed.
GRACE_SECONDS: Final = 5.0

_PR_SET_PDEATHSIG: Final = 1


def _die_with_parent() -> Callable[[], None] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def set_death_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return set_death_signal


def _kill_if_alive(process: subprocess.Popen[bytes]) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):  # it may have exited in between
            process.kill()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM now, SIGKILL after the grace period (safe to call from a signal handler)."""
    if process.returncode is not None:
        return
    try:
        process.terminate()
    except ProcessLookupError:  # pragma: no cover - exited in between
        return
    timer = threading.Timer(GRACE_SECONDS, _kill_if_alive, args=(process,))
    timer.daemon = True
    timer.start()


def _watch_stdin(process: subprocess.Popen[bytes]) -> None:
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    _stop(process)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv`` until stdin closes; return its exit status."""
    command = list(sys.argv[1:] if argv is None else argv)
    if not command:
        print("usage: python -m ostinato_llamacpp._guard COMMAND [ARG...]", file=sys.stderr)
        return 2
    # Single-threaded until Popen returns, so preexec_fn is safe here.
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent())
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: _stop(process))
    threading.Thread(target=_watch_stdin, args=(process,), daemon=True).start()
    code = process.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
