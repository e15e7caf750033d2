"""The environment the ``make`` targets give a user holds no replacement tool advisor.

A replacement tool advisor that is installed takes over every auto-configured client (one
installed replacement wins over ``default``), so the environment of the README's scripts
and ``ostinato chat`` must not hold one nobody chose. These tests run the commands the
Makefile runs (``make -n`` prints them): every ``uv sync`` planned into a fresh
environment (``--dry-run``) installs core and every plugin but ``ostinato-tool-search``,
and no ``uv run`` of any target installs anything by syncing again.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.fakes.environments import ROOT, UV

REPLACEMENT = "ostinato-tool-search"
TARGETS = ("setup", "demo", "run", "test", "lint", "docs", "bench", "bench-quick", "demo-check")
# `uv run` options that take a value (the program follows the options).
_VALUE_OPTIONS = frozenset({"--group", "--extra", "--package", "--python", "--with", "--env-file"})

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or UV is None, reason="needs make and uv (`make setup`)"
)


def _commands(target: str) -> list[list[str]]:
    """The uv commands ``make <target>`` runs (with its prerequisites'), as argv lists
    from the subcommand on (``sync …``, ``run …``).

    The Makefile runs ``$(PYTHON) -m uv``: the uv of the interpreter make was started with.
    Inside ``make test`` the first ``python3`` on PATH is the project's, which has no uv, so
    the tests run these commands with the uv they found (``UV``)."""
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    text = done.stdout.replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        words = shlex.split(line)
        if "uv" not in words or words.index("uv") < 2 or words[words.index("uv") - 1] != "-m":
            continue
        at = words.index("uv")
        if words[at + 1] in ("sync", "run"):
            commands.append(words[at + 1 :])
    return commands


def _workspace_distributions() -> set[str]:
    names = set()
    for pyproject in [ROOT / "core" / "pyproject.toml", *ROOT.glob("plugins/*/pyproject.toml")]:
        names.add(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["name"])
    return names


def _environment(project_environment: Path) -> dict[str, str]:
    return {**os.environ, "UV_PROJECT_ENVIRONMENT": str(project_environment), "UV_OFFLINE": "1"}


def test_every_sync_installs_the_workspace_but_the_replacement_tool_advisor(tmp_path):
    syncs = [c for target in TARGETS for c in _commands(target) if c[0] == "sync"]
    assert syncs, "no target syncs the environment"
    expected = _workspace_distributions() - {REPLACEMENT}
    assert {"ostinato", "ostinato-openai", "ostinato-llamacpp", "ostinato-memory"} <= expected
    for command in {tuple(c) for c in syncs}:
        planned = subprocess.run(
            [*UV, *(w for w in command if w != "--quiet"), "--dry-run"],
            cwd=ROOT,
            env=_environment(tmp_path / "fresh"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert planned.returncode == 0, planned.stderr
        installed = {
            line.split()[1].split("==")[0]
            for line in planned.stderr.splitlines()
            if line.startswith(" + ")
        }
        assert REPLACEMENT not in installed, shlex.join(command)
        assert expected <= installed, (shlex.join(command), expected - installed)


def test_no_target_syncs_again_when_it_runs(tmp_path):
    # An empty environment: a `uv run` that syncs would fill it with the workspace.
    venv = tmp_path / "venv"
    created = subprocess.run([*UV, "venv", "--quiet", str(venv)], capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    runs = {tuple(c) for target in TARGETS for c in _commands(target) if c[0] == "run"}
    assert runs, "no target uses uv run"
    for command in runs:
        at = 1
        while at < len(command) and command[at].startswith("-"):
            at += 2 if command[at] in _VALUE_OPTIONS else 1
        probe = [*UV, *command[:at], "python", "-c", "pass"]
        done = subprocess.run(
            probe, cwd=ROOT, env=_environment(venv), capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (shlex.join(command), done.stderr)
    listed = subprocess.run(
        [*UV, "pip", "list", "--python", str(venv / "bin" / "python"), "--format", "freeze"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout.strip() == "", "a target's `uv run` synced the environment"


def test_the_demo_runs_the_tool_advisor_the_environment_gives():
    (demo,) = [c for c in _commands("demo") if c[0] == "run"]
    assert "ostinato" in demo and "chat" in demo
    printed = subprocess.run(
        ["make", "-n", "-B", "demo"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "TOOL_CALLING__ADVISOR" not in printed
