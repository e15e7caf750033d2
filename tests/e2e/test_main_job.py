"""The main job, end to end: ``make demo`` on the real local model.

It runs the README's main-job command as a newcomer would (no terminal, no key) and
checks that the model called the weather tool for both cities and answered. It needs the
local model (``ostinato local setup``: llama-server built, the model fetched), so it runs
only when ``E2E_MAIN_JOB=1``, as ``make demo-check`` (and CI) sets it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.local_model import answered_calls, needs_local_model, run_to_success

pytestmark = needs_local_model


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
    proc, report = run_to_success(["make", "--silent", "--no-print-directory", "demo"], env)
    cities = " ".join(
        arguments.lower() for arguments, _ in answered_calls("get_weather", proc.stderr)
    )
    assert "paris" in cities, report
    assert "tokyo" in cities, report
