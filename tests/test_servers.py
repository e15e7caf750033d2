"""The test servers never outlive the test run, even one killed with SIGKILL.

A pytest run in a subprocess starts the real server through the real session fixture,
reports the server's process id, and blocks; the test kills that pytest with SIGKILL (no
fixture teardown runs) and the server must be gone soon after.
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

ROOT = Path(__file__).resolve().parents[1]

_HOLDER = """
import os

from tests.plugins.memory_postgres.conftest import postgres_server
from tests.plugins.memory_redis.conftest import redis_server

__all__ = ["postgres_server", "redis_server", "test_hold"]


def test_hold(request):
    server = request.getfixturevalue(os.environ["HOLD_FIXTURE"])
    os.write(int(os.environ["HOLD_REPORT"]), f"{server.pid}\\n".encode())
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
        line = os.read(report_read, 64) if ready else b""
        if not line:
            run.kill()
            output = run.communicate()[0].decode(errors="replace")
            pytest.fail(f"the pytest run did not report a server:\n{output}")
        pid = int(line)
        assert not _gone(pid)
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 20
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # the server is another process's orphan: nothing to wait on
        still_running = not _gone(pid)
        if still_running:
            os.kill(pid, signal.SIGKILL)
        assert not still_running, f"the {fixture} process {pid} outlived the killed run"
    finally:
        os.close(report_read)
        os.close(block_write)
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stdout is not None:
            run.stdout.close()
