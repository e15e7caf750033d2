"""Running ``ostinato`` in a child process whose controlling terminal is a pty.

The child runs on the slave side of a pseudo-terminal, so what is typed at the master is
what a person types, and Ctrl-C is a real ``\\x03``: the kernel turns it into SIGINT for
the child. :func:`ostinato_on_terminal` starts it and always stops it;
:class:`Terminal` types and waits for output.

A Ctrl-C is pressed only once the child waits (:func:`wait_until_waiting`), never as soon
as its output appears: Python runs a signal handler only between bytecodes or when a
blocking call is interrupted, so a SIGINT that lands after the child wrote its prompt (or
a piece of the answer) but before it blocked in ``select`` (readline) or ``epoll_wait``
(the event loop) trips the handler's flag and then waits, unseen, for the next input or
event — the hint never appears. A person cannot press Ctrl-C within those microseconds;
a test reacting to the output can, under CPU load.

The terminal has ``NOFLSH`` set: by default the line discipline throws away the output
not yet read from the master when Ctrl-C is typed, which a terminal emulator, reading
as the output comes, never leaves there, and a test that types faster than it reads
does: a second, impatient Ctrl-C would erase the ``cancelled`` the first one printed.
"""

from __future__ import annotations

import fcntl
import os
import platform
import pty
import re
import select
import subprocess
import sys
import termios
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tests.core.cli.cli_process import child_environment
from tests.fakes.distributions import FakeDistributions

__all__ = ["Terminal", "ostinato_on_terminal", "wait_until_waiting"]

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")


#: The system calls a process waiting for input or events blocks in, by machine.
_WAITING_SYSCALLS = {
    # select, poll, epoll_wait, pselect6, ppoll, epoll_pwait, epoll_pwait2
    "x86_64": {"23", "7", "232", "270", "271", "281", "441"},
    # pselect6, ppoll, epoll_pwait, epoll_pwait2
    "aarch64": {"72", "73", "22", "441"},
}


def wait_until_waiting(pid: int, timeout: float = 20.0) -> None:
    """Return once process ``pid`` is blocked waiting for input or events.

    Read from ``/proc/<pid>/syscall`` (Linux); where it cannot be read, or the machine's
    system call numbers are not listed, this returns at once.
    """
    waiting = _WAITING_SYSCALLS.get(platform.machine())
    path = Path(f"/proc/{pid}/syscall")
    deadline = time.monotonic() + timeout
    while waiting is not None:
        try:
            call = path.read_text().split(maxsplit=1)[0]
        except (OSError, IndexError):
            return
        if call in waiting:
            return
        assert time.monotonic() < deadline, f"process {pid} never waited (in {call!r})"
        time.sleep(0.001)  # polling a condition, not waiting for one to happen by itself


class Terminal:
    """The master side of a pty the child runs on: type into it, wait for output."""

    def __init__(self, process: subprocess.Popen[bytes], master: int) -> None:
        self.process = process
        self.master = master
        self.screen = ""

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def interrupt(self) -> None:
        """Press Ctrl-C once the child waits for input or events (see the module docstring)."""
        wait_until_waiting(self.process.pid)
        self.type("\x03")

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the child closed the terminal
                data = b""
            self.screen += ANSI.sub("", data.decode(errors="replace").replace("\r", ""))

    def expect(self, pattern: str, timeout: float = 20.0) -> str:
        """Wait until ``pattern`` (a regex) appears after what earlier calls consumed."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.screen)
            if match:
                seen, self.screen = self.screen[: match.end()], self.screen[match.end() :]
                return seen
            if time.monotonic() > deadline or self.process.poll() is not None:
                self._read(0.2)
                match = re.search(pattern, self.screen)
                if match:
                    continue
                raise AssertionError(f"{pattern!r} did not appear; the screen:\n{self.screen}")
            self._read(0.1)


def _controlling_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@contextmanager
def ostinato_on_terminal(
    distributions: FakeDistributions,
    cwd: Path,
    *argv: str,
    env: Mapping[str, str] | None = None,
) -> Iterator[Terminal]:
    """``ostinato *argv`` in ``cwd`` on a fresh pty, seeing ``distributions`` (the
    environment of :func:`~tests.core.cli.cli_process.child_environment`, an ``xterm`` 200
    columns wide, then ``env``); killed, if still running, and its terminal closed after."""
    master, slave = pty.openpty()
    attributes = termios.tcgetattr(slave)
    attributes[3] |= termios.NOFLSH  # lflag: Ctrl-C keeps the output (see the module)
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    process = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", *argv],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=child_environment(distributions, {"TERM": "xterm", "COLUMNS": "200", **(env or {})}),
        cwd=cwd,
        preexec_fn=_controlling_terminal,  # the child needs the pty as its controlling terminal
    )
    os.close(slave)
    try:
        yield Terminal(process, master)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        os.close(master)
