"""A newcomer's first day, end to end: what the README and the getting-started page tell
a new user to do, in the environment ``make setup`` gives them, with no setting of their
own.

1. The README's "Twenty lines" script prints what the README shows.
2. ``ostinato chat -c NAME QUESTION`` on the default model (the local one) answers, and
   ``ostinato logs`` then lists that conversation and ``ostinato logs show NAME`` shows it:
   one default store for both commands.
3. ``ostinato worker`` without a usable model (no ``OSTINATO_MODEL``, the local model not
   set up) refuses to start, with an ``error … fix: …`` message, instead of taking turns
   it would fail later.

Each step starts from fresh user data and state folders (``XDG_DATA_HOME``,
``XDG_STATE_HOME``), as on a new machine; the local model stays in its cache. Step 2
runs the real local model, so the walk-through runs only when ``E2E_MAIN_JOB=1``, as
``make demo-check`` (and CI) sets it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.commands import run_command
from tests.e2e.local_model import ROOT, needs_local_model
from tests.packaging.workspace import readme_example

pytestmark = needs_local_model

# The environment `make setup` gives: the workspace's .venv, where `uv run` runs this.
BIN = Path(sys.executable).parent


def _new_user(tmp_path: Path) -> dict[str, str]:
    """The process environment of a new user: no ostinato setting of their own, and fresh
    folders for the conversations and state the commands keep."""
    dropped = {"E2E_MAIN_JOB", "DEMO_MODEL", "DEMO_QUESTION"}
    env = {
        k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("OSTINATO_")
    }
    for variable, name in (("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        (tmp_path / name).mkdir(exist_ok=True)
        env[variable] = str(tmp_path / name)
    return env


def test_the_readmes_twenty_lines_print_what_the_readme_shows(tmp_path: Path):
    script, shown = readme_example()
    path = tmp_path / "twenty_lines.py"
    path.write_text(script, encoding="utf-8")
    proc = run_command([BIN / "python", path], env=_new_user(tmp_path), cwd=tmp_path)
    assert proc.stdout.strip() == shown.strip()


def test_chat_with_a_conversation_then_logs_shows_it(tmp_path: Path):
    env = _new_user(tmp_path)
    question = "In one short sentence: what is the capital of France?"
    chat = [str(BIN / "ostinato"), "chat", "-c", "first-day", question]
    # The default model: the local one (its server starts with the first request).
    answered = run_command(chat, env=env, cwd=ROOT, timeout=1800)
    assert re.search(r"^usage: .* tokens; \d+ model rounds?\b", answered.stderr, re.MULTILINE)
    assert answered.stdout.strip(), "the model answered nothing"
    answer = answered.stdout.strip().splitlines()[0].strip()

    listed = run_command([BIN / "ostinato", "logs"], env=env, cwd=ROOT).stdout
    assert re.search(r"^first-day\s+[1-9]", listed, re.MULTILINE), (
        "`ostinato logs` does not list the conversation `ostinato chat -c first-day` stored"
    )
    shown = run_command([BIN / "ostinato", "logs", "show", "first-day"], env=env, cwd=ROOT).stdout
    assert question in shown, shown
    assert answer in shown, (answer, shown)


def test_a_worker_without_a_usable_model_refuses_to_start(tmp_path: Path):
    env = _new_user(tmp_path)
    # No OSTINATO_MODEL, and the local model (the default) not set up: an empty cache.
    (tmp_path / "cache").mkdir()
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    argv = [str(BIN / "ostinato"), "worker"]
    try:
        proc = subprocess.run(
            argv,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired as running:
        raise AssertionError(
            "`ostinato worker` started without a usable model (still running after 30 s); "
            f"it printed:\n{running.stdout!r}\n{running.stderr!r}"
        ) from None
    report = f"exit code {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    print(report)
    assert proc.returncode != 0, report
    assert "taking turns" not in proc.stdout + proc.stderr, report
    assert re.search(r"\berror\b", proc.stderr), report
    assert "fix:" in proc.stderr, report
    assert "Traceback" not in proc.stderr, report
