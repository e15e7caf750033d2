"""``LlamaServer``: one ``llama-server`` process on a free loopback port, and its end.

The server runs behind :mod:`ostinato_llamacpp._guard`, in its own session (a Ctrl-C at
the terminal reaches ostinato, which decides, not the server), with its output in a log
file. :meth:`LlamaServer.start` picks a free port, launches, and polls ``/health`` until
the model is loaded; :meth:`LlamaServer.stop` closes the guard's stdin and waits. Every
server still running when the interpreter exits is stopped (``atexit``); if ostinato
dies without running ``atexit`` (SIGKILL, SIGTERM), the guard sees its stdin close and
stops the server. A forked child forgets its parent's servers.

Blocking on purpose: callers on an event loop run :meth:`start` in a thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from ostinato_llamacpp._errors import LlamaServerStartError, exit_signal

__all__ = ["LOOPBACK", "LlamaServer", "ServerSpec", "free_port"]

#: The only interface servers listen on.
LOOPBACK: Final = "127.0.0.1"

_PORT_ATTEMPTS: Final = 3
_POLL_SECONDS: Final = 0.1
_STOP_SECONDS: Final = 10.0
_PORT_TAKEN_MARKERS: Final = ("address already in use", "couldn't bind", "failed to bind")
_NO_PROXY: Final = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """What to run: the binary, the model and the options of one ``llama-server``.

    Equal specs may share one process (see :func:`~ostinato_llamacpp.acquire_server`).

    Attributes:
        binary: the ``llama-server`` executable.
        model: the GGUF file.
        threads: generation threads (``--threads``).
        threads_batch: prompt-processing threads (``--threads-batch``); ``None``: the
            server's default, ``threads``.
        context: context size in tokens; 0 keeps the model's own (``--ctx-size``).
        chat_template: a Jinja chat template file (``--chat-template-file``); ``None``:
            the one inside the GGUF.
        alias: the model name the server reports (``--alias``).
        extra_args: further arguments, appended as given.
    """

    binary: Path
    model: Path
    threads: int = 1
    threads_batch: int | None = None
    context: int = 8192
    chat_template: Path | None = None
    alias: str | None = None
    extra_args: tuple[str, ...] = ()

    def command(self, port: int) -> list[str]:
        """The command line that serves this spec on ``port`` of the loopback interface."""
        args = [str(self.binary), "--model", str(self.model)]
        args += ["--host", LOOPBACK, "--port", str(port), "--threads", str(self.threads)]
        if self.threads_batch is not None:
            args += ["--threads-batch", str(self.threads_batch)]
        args += ["--parallel", "1", "--jinja", "--no-webui"]
        if self.context:
            args += ["--ctx-size", str(self.context)]
        if self.chat_template is not None:
            args += ["--chat-template-file", str(self.chat_template)]
        if self.alias:
            args += ["--alias", self.alias]
        return [*args, *self.extra_args]


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


class _PortTaken(Exception):
    """Internal: the server could not bind its port (someone took it first)."""


_LIVE: weakref.WeakSet[LlamaServer] = weakref.WeakSet()


class LlamaServer:
    """One ``llama-server`` process for ``spec``, started by :meth:`start`.

    Args:
        spec: what to run.
        startup_timeout: seconds :meth:`start` waits for ``/health`` to answer 200.
        log_dir: where the server's output goes (default: the system's temp dir); the
            log is removed when the server stops cleanly and kept when it fails.
        python: the interpreter running the guard (default: this one).
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        startup_timeout: float = 120.0,
        log_dir: Path | None = None,
        python: str = sys.executable,
    ) -> None:
        self._spec = spec
        self._startup_timeout = startup_timeout
        self._log_dir = log_dir
        self._python = python
        self._lock = threading.RLock()
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._log_path: Path | None = None
        self._port: int | None = None

    def __repr__(self) -> str:
        state = f"port={self._port}" if self.running else "stopped"
        return f"LlamaServer(model={self._spec.model.name!r}, {state})"

    @property
    def spec(self) -> ServerSpec:
        """What this server runs."""
        return self._spec

    @property
    def port(self) -> int | None:
        """The port it listens on (``None`` before the first start)."""
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` (raises ``RuntimeError`` before the first start)."""
        if self._port is None:
            raise RuntimeError("the llama-server has not been started")
        return f"http://{LOOPBACK}:{self._port}"

    @property
    def pid(self) -> int | None:
        """The process id of the guard in front of the server, while there is one."""
        return self._process.pid if self._process is not None else None

    @property
    def log_path(self) -> Path | None:
        """The file the server's output goes to."""
        return self._log_path

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended (``None`` while it runs)."""
        process = self._process
        return process.poll() if process is not None else None

    @property
    def running(self) -> bool:
        """Whether the process was started and has not exited."""
        process = self._process
        return process is not None and process.poll() is None

    def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the process to end; its status or ``None``."""
        process = self._process
        if process is None:
            return None
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the server's output ("" if there is none)."""
        if self._log_path is None:
            return ""
        try:
            data = self._log_path.read_bytes()[-16384:]
        except OSError:
            return ""
        return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the server and wait until it is healthy; no-op while it runs.

        A server that has exited (e.g. crashed) is started again, on a new port.

        Raises:
            LlamaServerStartError: it exited while starting, or did not become healthy
                within ``startup_timeout`` (it is stopped then).
        """
        with self._lock:
            if self.running:
                return
            self._discard()
            deadline = time.monotonic() + self._startup_timeout
            for attempt in range(_PORT_ATTEMPTS):
                try:
                    self._launch(free_port())
                    self._wait_healthy(deadline)
                except _PortTaken:
                    error = self._start_error("could not bind a free port")
                    self._discard()
                    if attempt + 1 == _PORT_ATTEMPTS:
                        raise error from None
                    continue
                except BaseException:
                    self._discard()  # closes the pipe and the log file; keeps the log
                    raise
                _LIVE.add(self)
                return

    def _launch(self, port: int) -> None:
        log_dir = self._log_dir or Path(tempfile.gettempdir())
        log_dir.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f"llama-server-{port}-", suffix=".log", dir=log_dir)
        self._log = os.fdopen(fd, "wb")
        self._log_path = Path(name)
        self._port = port
        guard = Path(__file__).with_name("_guard.py")
        try:
            self._process = subprocess.Popen(
                [self._python, "-I", str(guard), *self._spec.command(port)],
                stdin=subprocess.PIPE,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise self._start_error(f"could not run {self._python}: {exc}") from exc

    def _wait_healthy(self, deadline: float) -> None:
        url = f"{self.base_url}/health"
        while True:
            code = self.returncode
            if code is not None:
                if any(m in self.log_tail(40).lower() for m in _PORT_TAKEN_MARKERS):
                    raise _PortTaken
                killed = exit_signal(code)
                by = f" (killed by {killed})" if killed else ""
                raise self._start_error(f"exited with status {code}{by} while starting")
            with (
                contextlib.suppress(urllib.error.URLError, OSError),
                _NO_PROXY.open(url, timeout=2.0) as response,
            ):
                if response.status == 200:
                    return
            if time.monotonic() >= deadline:
                error = self._start_error(
                    f"did not become healthy within {self._startup_timeout:g} s "
                    "(raise OSTINATO_LLAMACPP_STARTUP_TIMEOUT if the model loads slowly)"
                )
                self.stop()
                raise error
            time.sleep(_POLL_SECONDS)

    def _start_error(self, what: str) -> LlamaServerStartError:
        tail = self.log_tail()
        shown = f"\n  last output:\n    {tail.replace(chr(10), chr(10) + '    ')}" if tail else ""
        where = f"\n  log: {self._log_path}" if self._log_path else ""
        return LlamaServerStartError(
            f"llamacpp: llama-server ({self._spec.binary}) {what}\n"
            f"  model: {self._spec.model}{where}{shown}",
            exit_code=self.returncode,
            log_path=self._log_path,
            log_tail=tail,
        )

    def stop(self, timeout: float = _STOP_SECONDS) -> None:
        """Stop the server and wait for it (killing it after ``timeout`` seconds).

        Its log is removed when it ran and stopped cleanly, kept otherwise.
        """
        with self._lock:
            process = self._process
            if process is None:
                return
            crashed = process.poll() is not None
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()  # the server dies with the guard (PR_SET_PDEATHSIG)
                process.wait()
            self._close_log()
            if not crashed and self._log_path is not None:
                with contextlib.suppress(OSError):
                    self._log_path.unlink()
            self._process = None
            _LIVE.discard(self)

    def _discard(self) -> None:
        """Forget an exited process (keeping its log for the error that reported it)."""
        if self._process is not None and self._process.poll() is None:
            self.stop()
        if self._process is not None and self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        self._process = None
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _forget(self) -> None:
        """In a forked child: drop the parent's process without touching it.

        The child's copy of the guard's stdin is closed, so that the guard still sees end
        of file when the parent goes away.
        """
        process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        self._close_log()


def _stop_live_servers() -> None:
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.stop()


def _forget_live_servers() -> None:
    for server in list(_LIVE):
        server._forget()
    _LIVE.clear()


atexit.register(_stop_live_servers)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_live_servers)
