"""The local default is built and fetched only with consent: asked on a terminal,
``--yes`` without one; never silently. Empty standard input asks nothing either."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.core.cli import local_plugin
from tests.core.cli.cli_process import run_ostinato
from tests.core.cli.terminal import ostinato_on_terminal


@pytest.fixture
def local(fake_distributions, tmp_path):
    local_plugin.install(fake_distributions)
    calls = tmp_path / "calls.txt"
    return (
        fake_distributions,
        {"OSTINATO_LOAD_PLUGINS": "llamacpp", "LOCAL_CALLS": str(calls)},
        calls,
    )


def test_without_a_terminal_nothing_is_built_and_the_fix_names_the_command(local, tmp_path):
    distributions, env, calls = local
    done = run_ostinato(distributions, tmp_path, "chat", "hi", env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "ostinato: error: llamacpp:default is not set up (llama-server is not built, or the "
        "model is not fetched); fix: run `ostinato local setup` first (a 1.1 GB download and "
        "about a minute, once), pass --yes to let ostinato chat run it, or choose another "
        "model with --model\n"
    )
    assert calls.read_text().split("\n")[:-1] == ["status"]  # asked, never set up


def test_yes_sets_it_up_unattended(local, tmp_path):
    distributions, env, calls = local
    done = run_ostinato(distributions, tmp_path, "chat", "--yes", "hi", env=env)
    assert (done.returncode, done.stdout) == (0, "Hi from the local model.\n")
    assert "running `ostinato local setup`" in done.stderr
    assert calls.read_text().split("\n")[:-1] == ["status", "setup"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
@pytest.mark.parametrize(("answer", "code", "setups"), [("y\n", 0, 1), ("\n", 2, 0)])
def test_on_a_terminal_it_asks_first(local, tmp_path, answer, code, setups):
    distributions, env, calls = local
    with ostinato_on_terminal(distributions, tmp_path, "chat", "hi", env=env) as terminal:
        terminal.expect(r"1\.1 GB model")
        terminal.expect(r"set it up now\? \[y/N\] ")
        terminal.type(answer)
        assert terminal.process.wait(timeout=30) == code
        if code:
            terminal.expect(r"is not set up .*fix: run `ostinato local setup` first")
        else:
            terminal.expect(r"Hi from the local model\.")
    assert calls.read_text().count("setup") == setups


def test_empty_standard_input_is_an_error_not_a_session(scripted, tmp_path: Path):
    done = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:echo", stdin="  \n")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        "ostinato: error: no question: none on the command line, and standard input (not a "
        "terminal) was empty; fix: "
    )
    assert "ostinato chat: " not in done.stderr  # no session banner
    piped = run_ostinato(scripted, tmp_path, "chat", "-m", "scripted:echo", stdin="hello\n")
    assert (piped.returncode, piped.stdout) == (
        0,
        "You said 'hello'; I see 0 earlier message(s).\n",
    )
