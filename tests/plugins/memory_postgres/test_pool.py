"""The repository's pools at the edges of a process's life, in child processes: a
server that refuses connections gives one clear error and no stream of psycopg warnings,
and a process that exits without closing the repository exits at once with a clean
stderr, whichever loops used it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import PostgresServer, free_port

CHILD = Path(__file__).with_name("exit_child.py")


def _run(url: str, mode: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")}
    return subprocess.run(
        [sys.executable, str(CHILD), url, mode],
        capture_output=True,
        text=True,
        env=clean,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("mode", ["sync", "async", "both"])
def test_a_process_exits_cleanly_without_closing_the_repository(
    postgres_server: PostgresServer, postgres_url: str, mode: str
) -> None:
    for _ in range(2):  # the pools' connections may or may not be open at exit
        done = _run(postgres_url, mode)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        assert done.stdout.split() == ["1"] * (3 if mode == "both" else 1)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_refused_connection_is_one_clear_error_without_psycopg_warnings(mode: str) -> None:
    url = f"postgresql://ostinato@127.0.0.1:{free_port()}/nothing"
    done = _run(url, mode)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no "error connecting in ...", once or five times
    (line, fix) = done.stdout.strip().splitlines()
    assert line.startswith("failed: the PostgreSQL memory store postgresql://ostinato@127.0.0.1")
    assert "could not write" in line and "Connection refused" in line
    assert fix.startswith("fix: check that the server runs")
