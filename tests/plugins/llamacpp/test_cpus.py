"""The usable CPUs (affinity and cgroup quota, not the host's count) and the thread rule."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ostinato_llamacpp._cpus import (
    cgroup_cpu_limit,
    default_batch_threads,
    default_threads,
    usable_cpus,
)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_cgroup_v2_quota_counts_with_its_ancestors(tmp_path: Path) -> None:
    proc = tmp_path / "proc-self-cgroup"
    write(proc, "0::/ci/job-1\n")
    root = tmp_path / "cgroup"
    write(root / "ci" / "job-1" / "cpu.max", "max 100000\n")
    write(root / "ci" / "cpu.max", "150000 100000\n")  # the parent's quota binds
    assert cgroup_cpu_limit(proc, root) == 1.5
    write(root / "ci" / "cpu.max", "max 100000\n")
    assert cgroup_cpu_limit(proc, root) is None


def test_a_cgroup_v1_cpu_quota_counts(tmp_path: Path) -> None:
    proc = tmp_path / "proc-self-cgroup"
    write(proc, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n")
    root = tmp_path / "cgroup"
    write(root / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_quota_us", "200000\n")
    write(root / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_period_us", "100000\n")
    write(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")  # unlimited at the top
    write(root / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(proc, root) == 2.0


def test_usable_cpus_is_the_tighter_of_affinity_and_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the host's count never counts
    proc = tmp_path / "proc-self-cgroup"
    write(proc, "0::/job\n")
    root = tmp_path / "cgroup"
    assert usable_cpus(proc, root) == 16  # no quota: the affinity mask
    write(root / "job" / "cpu.max", "250000 100000\n")
    assert usable_cpus(proc, root) == 3  # 2.5 CPUs of quota, rounded up
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert usable_cpus(proc, root) == 2
    assert usable_cpus(tmp_path / "missing", root) == 2  # unreadable cgroup: affinity only


@pytest.mark.parametrize(("cpus", "threads"), [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8)])
def test_the_thread_rule_is_half_the_usable_cpus(cpus: int, threads: int) -> None:
    assert default_threads(cpus) == threads
    assert default_batch_threads(cpus) == cpus  # the prompt is read on all of them
