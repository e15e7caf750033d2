"""Fresh virtual environments holding real installed distributions, built with uv.

A test that must see a distribution installed for real (its entry points, its console
scripts, its editable install) builds one of these: nothing of the workspace is in it
but what the test installs.

    python = fresh_environment(tmp_path / "venv")
    install(python, ROOT / "core", "-e", plugin_directory)
    run([str(python.parent / "ostinato"), "plugins"])
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "UV", "fresh_environment", "install", "run", "uninstall"]

#: The repository root.
ROOT = Path(__file__).resolve().parents[2]


def _find_uv() -> list[str] | None:
    explicit = os.environ.get("UV") or shutil.which("uv")
    if explicit:
        return [explicit]
    # `make setup` installs uv as a module of the interpreter that runs make.
    for python in (shutil.which("python3"), sys.executable):
        if python and _works([python, "-m", "uv", "--version"]):
            return [python, "-m", "uv"]
    return None


def _works(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=60, check=False).returncode == 0
    except OSError:
        return False


#: How to run uv here (``None``: not installed; ``make setup`` installs it).
UV: list[str] | None = _find_uv()


def run(
    command: list[str],
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``command``, capturing its output as text; never raises on a failure."""
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=False, env=env, cwd=cwd
    )


def _uv() -> list[str]:
    if UV is None:
        raise AssertionError(
            "uv is needed to build a fresh environment and was not found (neither on PATH, "
            "nor in $UV, nor as `python3 -m uv`); install it: python3 -m pip install uv "
            "(make setup does)"
        )
    return UV


def fresh_environment(venv: Path) -> Path:
    """Make a virtual environment at ``venv`` (this interpreter's Python); its python."""
    made = run([*_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)])
    assert made.returncode == 0, made.stderr
    return venv / "bin" / "python"


def install(python: Path, *sources: str | Path) -> None:
    """``uv pip install`` ``sources`` (paths, requirements, ``-e`` flags) for ``python``."""
    done = run([*_uv(), "pip", "install", "--quiet", "--python", str(python), *map(str, sources)])
    assert done.returncode == 0, done.stderr


def uninstall(python: Path, *names: str) -> None:
    """``uv pip uninstall`` the distributions ``names`` from ``python``'s environment."""
    done = run([*_uv(), "pip", "uninstall", "--quiet", "--python", str(python), *names])
    assert done.returncode == 0, done.stderr
