"""How many CPUs this process may use, and how many threads ``llama-server`` gets.

The host's CPU count (``os.cpu_count()``) is the wrong number in a container or under
``taskset``: a server started with 16 threads on a 2-CPU quota oversubscribes the CPUs
and generation collapses (58 to 1.2 tokens/s measured on a 2-core machine). The usable
count is the smallest of the CPU affinity mask (``sched_getaffinity``) and the cgroup
CPU quota (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``), rounded up.
Reads a few files under ``/proc`` and ``/sys``; never writes, never fails.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Final

__all__ = ["cgroup_cpu_limit", "default_batch_threads", "default_threads", "usable_cpus"]

_PROC_CGROUP: Final = Path("/proc/self/cgroup")
_CGROUP_ROOT: Final = Path("/sys/fs/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _ancestors(root: Path, relative: str) -> list[Path]:
    """``root/relative`` and each directory above it, up to ``root``."""
    parts = [p for p in relative.strip("/").split("/") if p and p != ".."]
    return [root.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]


def _quota_v2(directory: Path) -> float | None:
    text = _read(directory / "cpu.max")
    if not text:
        return None
    quota, _, period = text.partition(" ")
    if quota == "max" or not period:
        return None
    try:
        return int(quota) / int(period)
    except (ValueError, ZeroDivisionError):
        return None


def _quota_v1(directory: Path) -> float | None:
    quota, period = _read(directory / "cpu.cfs_quota_us"), _read(directory / "cpu.cfs_period_us")
    try:
        if quota is None or period is None or int(quota) <= 0:
            return None
        return int(quota) / int(period)
    except (ValueError, ZeroDivisionError):
        return None


def cgroup_cpu_limit(
    proc_cgroup: Path = _PROC_CGROUP, cgroup_root: Path = _CGROUP_ROOT
) -> float | None:
    """The CPU quota of this process's cgroups in CPUs (``1.5``), or ``None`` if unlimited.

    The tightest quota of the process's cgroup and its ancestors counts, in the unified
    (v2) hierarchy and in the v1 ``cpu`` controller alike.
    """
    text = _read(proc_cgroup)
    if not text:
        return None
    limits: list[float] = []
    for line in text.splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, relative = rest.partition(":")
        if hierarchy == "0" and controllers == "":
            roots, reader = [cgroup_root, cgroup_root / "unified"], _quota_v2
        elif "cpu" in controllers.split(","):
            roots = [cgroup_root / controllers, cgroup_root / "cpu,cpuacct", cgroup_root / "cpu"]
            reader = _quota_v1
        else:
            continue
        for root in roots:
            if root.is_dir():
                limits += [q for d in _ancestors(root, relative) if (q := reader(d)) is not None]
                break
    return min(limits) if limits else None


def usable_cpus(proc_cgroup: Path = _PROC_CGROUP, cgroup_root: Path = _CGROUP_ROOT) -> int:
    """The CPUs this process may run on: affinity mask and cgroup quota, at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        count = os.cpu_count() or 1
    quota = cgroup_cpu_limit(proc_cgroup, cgroup_root)
    if quota is not None:
        count = min(count, math.ceil(quota))
    return max(count, 1)


def default_threads(cpus: int | None = None) -> int:
    """The generation threads of a started ``llama-server``: half the usable CPUs, at
    least one.

    Token generation is bound by memory bandwidth, not arithmetic: beyond the physical
    cores (half the logical ones with SMT) more threads only wait on each other, and the
    client, the tools and the rest of the machine need a CPU too.
    """
    count = usable_cpus() if cpus is None else cpus
    return max(count // 2, 1)


def default_batch_threads(cpus: int | None = None) -> int:
    """The prompt-processing threads of a started ``llama-server``: all the usable CPUs.

    Reading the prompt is arithmetic on whole matrices, which every core speeds up; it
    is most of a tool turn (hundreds of prompt tokens, tens generated).
    """
    return usable_cpus() if cpus is None else max(cpus, 1)
