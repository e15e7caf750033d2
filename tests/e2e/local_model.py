"""Running a command against the real local model, as the end-to-end tests do.

They need the local model (``ostinato local setup``: llama-server built, the model
fetched), so they run only when ``E2E_MAIN_JOB=1``, as ``make demo-check`` (and CI) sets
it: :data:`needs_local_model` is their module mark.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.commands import run_command

__all__ = ["ROOT", "answered_calls", "needs_local_model", "run_to_success"]

ROOT = Path(__file__).resolve().parents[2]

needs_local_model = pytest.mark.skipif(
    os.environ.get("E2E_MAIN_JOB") != "1",
    reason="runs the real local model; `make demo-check` runs it",
)


def run_to_success(
    argv: Sequence[str], env: Mapping[str, str]
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run ``argv`` in the repository, without a terminal; it must exit 0 and print an
    answer with its usage line. Returns the process and a report of everything it wrote
    (printed, so pytest shows it when a test fails, and in ``-s`` runs)."""
    proc = run_command(argv, cwd=ROOT, env=env, timeout=1800)
    report = f"exit code {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert re.search(r"^usage: .* tokens; \d+ model rounds", proc.stderr, re.MULTILINE), report
    assert proc.stdout.strip(), report
    return proc, report


def answered_calls(tool: str, stderr: str) -> list[tuple[str, str]]:
    """The ``(arguments, result)`` of each call of ``tool`` the chat command reported."""
    return re.findall(rf"^← {tool}\((.*)\) [0-9.]+ s: (.*)$", stderr, re.MULTILINE)
