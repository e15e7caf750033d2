"""The main job, end to end: ``make demo`` on the real local model.

It runs the README's main-job command as a newcomer would (no terminal, no key) and
checks that the model called the weather tool for both cities and answered. It needs the
local model (``ostinato local setup``: llama-server built, the model fetched), so it runs
only when ``E2E_MAIN_JOB=1``, as ``make demo-check`` (and CI) sets it.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("E2E_MAIN_JOB") != "1",
    reason="runs the real local model; `make demo-check` runs it",
)


def test_make_demo_calls_the_weather_tool_for_both_cities_and_answers():
    # As from a shell: not inside the workspace's virtual environment (which `uv run`
    # put first on PATH), so that make finds the Python that has uv.
    unset = {"E2E_MAIN_JOB", "DEMO_MODEL", "DEMO_QUESTION", "OSTINATO_MODEL", "VIRTUAL_ENV"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        bin_dir = str(Path(venv) / "bin")
        env["PATH"] = os.pathsep.join(
            p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir
        )
    proc = subprocess.run(
        ["make", "--silent", "--no-print-directory", "demo"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    report = f"exit code {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    print(report)  # shown by pytest when the test fails, and in -s runs
    assert proc.returncode == 0, report
    answered = re.findall(r"^← get_weather\((.*)\) [0-9.]+ s: (.*)$", proc.stderr, re.MULTILINE)
    cities = " ".join(arguments.lower() for arguments, _ in answered)
    assert "paris" in cities, report
    assert "tokyo" in cities, report
    assert re.search(r"^usage: .* tokens; \d+ model rounds", proc.stderr, re.MULTILINE), report
    assert proc.stdout.strip(), report
