"""Running ``ostinato`` in a child process, as a user runs it from a shell (or, with
:func:`run_main`, its entry point in this process).

The child sees the fake distributions of the test (``--model scripted:<scenario>``), no
``OSTINATO_*`` variable of the parent, and standard input from ``stdin`` (a closed,
empty input when ``None``: not a terminal).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from ostinato.cli import main
from tests.fakes.distributions import FakeDistributions

__all__ = ["ROOT", "child_environment", "run_cli", "run_main", "run_ostinato"]

ROOT = Path(__file__).resolve().parents[3]


def child_environment(
    distributions: FakeDistributions, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The parent's environment without ``OSTINATO_*``, seeing ``distributions``."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "PYTHONPATH": os.pathsep.join([str(distributions.root), str(ROOT)]),
        "OSTINATO_LOAD_PLUGINS": "scripted",
        "NO_COLOR": "1",
        **(extra or {}),
    }


def run_cli(
    *argv: str,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m ostinato.cli *argv`` in a fresh interpreter (this environment and
    working directory unless ``env`` / ``cwd`` are given; ``stdin`` as its input, else
    this process's); its exit code, stdout and stderr as text."""
    return subprocess.run(
        [sys.executable, "-m", "ostinato.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=None if env is None else dict(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def run_ostinato(
    distributions: FakeDistributions,
    cwd: Path,
    *argv: str,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``ostinato *argv`` in ``cwd``, seeing ``distributions``; its exit code, stdout and
    stderr as text."""
    return run_cli(
        *argv,
        stdin=stdin if stdin is not None else "",
        env=child_environment(distributions, env),
        cwd=cwd,
    )


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``ostinato *argv`` through its entry point in this process: the exit code, and what
    it wrote to stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
