"""The interactive ``ostinato chat`` session, driven through a pseudo-terminal.

The command runs in a child process whose controlling terminal is the pty, so Ctrl-C is
a real ``\\x03`` typed at the terminal: the kernel turns it into SIGINT for the child.

A Ctrl-C is pressed only once the child waits (:func:`wait_until_waiting`), never as soon
as its output appears: Python runs a signal handler only between bytecodes or when a
blocking call is interrupted, so a SIGINT that lands after the child wrote its prompt (or
a piece of the answer) but before it blocked in ``select`` (readline) or ``epoll_wait``
(the event loop) trips the handler's flag and then waits, unseen, for the next input or
event — the hint never appears. A person cannot press Ctrl-C within those microseconds;
a test reacting to the output can, under CPU load.
"""

from __future__ import annotations

import fcntl
import os
import platform
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions

ROOT = Path(__file__).resolve().parents[3]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


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


@pytest.fixture
def terminal(scripted: FakeDistributions, tmp_path: Path) -> Iterator[Terminal]:
    master, slave = pty.openpty()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "PYTHONPATH": os.pathsep.join([str(scripted.root), str(ROOT)]),
        "OSTINATO_LOAD_PLUGINS": "scripted",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "xterm",
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", "chat", "--model", "scripted:interactive"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=tmp_path,
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


def test_a_session_answers_cancels_a_turn_with_ctrl_c_and_goes_on(terminal, tmp_path):
    terminal.expect(r"ostinato chat: scripted:interactive \(--model\); tools: none")
    terminal.expect(r"\n> ")
    terminal.type("hello\n")
    terminal.expect(r"You said 'hello'; I see 0 earlier message\(s\)\.")
    terminal.expect(r"usage: 1 model round; [0-9.]+ s")
    terminal.expect(r"\n> ")

    terminal.type("tell me a slow story\n")
    terminal.expect(r"Once upon a time")
    terminal.interrupt()  # Ctrl-C: SIGINT from the terminal
    terminal.expect(r"\ncancelled")
    terminal.expect(r"\n> ")

    # The session goes on, and the cancelled turn is not part of the conversation.
    terminal.type("and now?\n")
    terminal.expect(r"You said 'and now\?'; I see 2 earlier message\(s\)\.")
    terminal.expect(r"\n> ")

    # Up-arrow recalls the previous question (readline history).
    terminal.type("\x1b[A\n")
    terminal.expect(r"You said 'and now\?'; I see 4 earlier message\(s\)\.")
    terminal.expect(r"\n> ")

    terminal.type("\x04")  # Ctrl-D quits
    assert terminal.process.wait(timeout=20) == 0
    history = tmp_path / "state" / "ostinato" / "chat_history"
    assert "tell me a slow story" in history.read_text(encoding="utf-8")


def test_the_progress_indicator_shows_while_the_model_thinks(terminal):
    terminal.expect(r"\n> ")
    terminal.type("slow one\n")
    terminal.expect(r"thinking [0-9.]+ s")
    terminal.expect(r"Once upon a time")
    terminal.interrupt()
    terminal.expect(r"cancelled")
    terminal.expect(r"\n> ")
    terminal.interrupt()  # Ctrl-C at the prompt: a hint, not an exit
    terminal.expect(r"\(Ctrl-D or /exit quits\)")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0


def test_scripted_provider_is_importable_by_the_child():
    # The child imports the provider by the same module name as the tests do.
    assert scripted_provider.__name__ == "tests.fakes.scripted_provider"


def test_ctrl_c_during_a_one_shot_turn_exits_130(scripted, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "PYTHONPATH": os.pathsep.join([str(scripted.root), str(ROOT)]),
        "OSTINATO_LOAD_PLUGINS": "scripted",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", "chat", "-m", "scripted:interactive", "slow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.read(len("Once upon a time")) == b"Once upon a time"
        wait_until_waiting(process.pid)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert out == b"\n"  # the answer's line is closed
    assert err.decode().splitlines()[-1] == "cancelled"


def test_an_unknown_slash_command_is_an_error_not_a_question(terminal):
    terminal.expect(r"\n> ")
    terminal.type("/exti\n")
    terminal.expect(
        r"ostinato: error: unknown command '/exti' \(commands: /help, /exit, /quit\); nothing "
        r"was sent to the model; fix: to ask a question that starts with '/', double it: //exti"
    )
    terminal.expect(r"\n> ")
    terminal.type("//etc is a folder\n")
    terminal.expect(r"You said '/etc is a folder'; I see 0 earlier message\(s\)\.")
    terminal.expect(r"\n> ")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0
