"""The test servers never outlive the test run, even one killed with SIGKILL, and the
next run removes the directories a killed run left behind.

A pytest run in a subprocess starts the real server through the real session fixture,
reports the server's process id and directory, and blocks; the test kills that pytest
with SIGKILL (no fixture teardown runs): the server must be gone soon after, and the next
server made removes its directory.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import OWNER_FILE, RedisServer, remove_stale_directories

ROOT = Path(__file__).resolve().parents[1]

_HOLDER = """
import os

from tests.plugins.memory_postgres.conftest import postgres_server
from tests.plugins.memory_redis.conftest import redis_server

__all__ = ["postgres_server", "redis_server", "test_hold"]


def test_hold(request):
    server = request.getfixturevalue(os.environ["HOLD_FIXTURE"])
    report = f"{server.pid} {server.directory}\\n".encode()
    os.write(int(os.environ["HOLD_REPORT"]), report)
    os.read(int(os.environ["HOLD_BLOCK"]), 1)  # returns only when the test kills us
"""


def _gone(pid: int) -> bool:
    """Whether the process has exited (a zombie nobody reaped has exited too)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return status.rsplit(")", 1)[1].split()[0] in {"Z", "X"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("fixture", ["redis_server", "postgres_server"])
def test_a_server_dies_with_the_killed_test_run(tmp_path: Path, fixture: str) -> None:
    holder = tmp_path / "test_hold.py"
    holder.write_text(_HOLDER)
    report_read, report_write = os.pipe()
    block_read, block_write = os.pipe()
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(holder)],
        cwd=ROOT,
        env={
            **os.environ,
            "HOLD_FIXTURE": fixture,
            "HOLD_REPORT": str(report_write),
            "HOLD_BLOCK": str(block_read),
        },
        pass_fds=(report_write, block_read),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    os.close(report_write)
    os.close(block_read)
    try:
        ready, _, _ = select.select([report_read], [], [], 60)
        line = os.read(report_read, 4096) if ready else b""
        if not line:
            run.kill()
            output = run.communicate()[0].decode(errors="replace")
            pytest.fail(f"the pytest run did not report a server:\n{output}")
        reported_pid, reported_directory = line.decode().split()
        pid, directory = int(reported_pid), Path(reported_directory)
        assert not _gone(pid) and directory.is_dir()
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 20
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # the server is another process's orphan: nothing to wait on
        still_running = not _gone(pid)
        if still_running:
            os.kill(pid, signal.SIGKILL)
        assert not still_running, f"the {fixture} process {pid} outlived the killed run"
        RedisServer().close()  # the next server made sweeps the killed run's directory
        assert not directory.exists()
    finally:
        os.close(report_read)
        os.close(block_write)
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stdout is not None:
            run.stdout.close()


def _dead_pid() -> int:
    """The process id of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _server_directory(parent: Path, name: str, owner: int | str | None) -> Path:
    directory = parent / name
    (directory / "data").mkdir(parents=True)
    (directory / "data" / "PG_VERSION").write_text("16\n")
    if owner is not None:
        (directory / OWNER_FILE).write_text(f"{owner}\n")
    return directory


def test_a_directory_of_a_dead_run_is_removed_and_every_other_is_kept(tmp_path: Path) -> None:
    dead = _server_directory(tmp_path, "ostinato-test-server-dead", _dead_pid())
    alive = _server_directory(tmp_path, "ostinato-test-server-alive", os.getpid())
    unowned = _server_directory(tmp_path, "ostinato-test-server-unowned", None)  # being made
    garbled = _server_directory(tmp_path, "ostinato-test-server-garbled", "12ab")
    foreign = _server_directory(tmp_path, "someone-else", _dead_pid())
    assert remove_stale_directories(tmp_path) == [dead]
    assert not dead.exists()
    assert all(d.is_dir() for d in (alive, unowned, garbled, foreign))


def test_a_server_directory_names_the_run_that_owns_it() -> None:
    server = RedisServer()
    try:
        assert server.directory.name.startswith("ostinato-test-server-")
        assert (server.directory / OWNER_FILE).read_text() == f"{os.getpid()}\n"
        assert server.directory not in remove_stale_directories(server.directory.parent)
        assert server.directory.is_dir()  # this run is alive: its directory stays
    finally:
        server.close()
