"""Running a command the way a user would, for the end-to-end and packaging tests.

One helper: run without a terminal, capture both streams, and fail with everything the
command wrote when it exits with another code than the one expected.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["run_command"]


def run_command(
    argv: Sequence[str | Path],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd`` with no standard input; it must exit 0.

    Everything it wrote is printed (pytest shows it when a test fails, and in ``-s`` runs)
    and is the assertion's message.
    """
    args = [str(a) for a in argv]
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    report = f"{' '.join(args)}\nexit code {proc.returncode}\n"
    report += f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    print(report)
    assert proc.returncode == 0, report
    return proc
