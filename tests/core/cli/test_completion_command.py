"""``ostinato completion bash|zsh|fish``: scripts generated from the command table."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ostinato.cli._main import BUILTIN_COMMANDS
from tests.core.cli.cli_process import run_ostinato

ECHO = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_commands(register):
        register("echo-setup", "Prepare the echo provider.", lambda argv: 0)
"""

WITH_ECHO = {"OSTINATO_LOAD_PLUGINS": "scripted,echo"}
COMMANDS = sorted([*BUILTIN_COMMANDS, "echo-setup"])


@pytest.fixture
def script(scripted, tmp_path) -> Path:
    scripted.plugin("echo", ECHO)
    done = run_ostinato(scripted, tmp_path, "completion", "bash", env=WITH_ECHO)
    assert (done.returncode, done.stderr) == (0, "")
    path = tmp_path / "ostinato.bash"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def complete(script: Path, *words: str) -> list[str]:
    """What bash offers for the command line ``words`` (the last one being typed)."""
    quoted = " ".join(f"'{w}'" for w in ["ostinato", *words])
    program = (
        f"source '{script}'\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words)}\n"
        "_ostinato\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    bash = shutil.which("bash") or "bash"
    done = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line]


def test_the_bash_script_is_valid_bash(script):
    subprocess.run([shutil.which("bash") or "bash", "-n", str(script)], check=True, timeout=30)


def test_bash_completes_every_command_plugin_commands_included(script):
    assert sorted(complete(script, "")) == sorted(
        [*COMMANDS, "--help", "-h", "--version", "--debug"]
    )
    assert complete(script, "ch") == ["chat"]
    assert complete(script, "ec") == ["echo-setup"]
    assert complete(script, "co") == ["config", "completion"]


def test_bash_completes_a_commands_options_and_words(script):
    assert sorted(complete(script, "chat", "--mod")) == ["--model"]
    assert "--approve" in complete(script, "chat", "hello", "--")
    assert complete(script, "completion", "") == ["bash", "fish", "zsh"]
    assert complete(script, "--debug", "completion", "z") == ["zsh"]
    assert "chat" in complete(script, "help", "")


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(scripted, tmp_path, shell):
    scripted.plugin("echo", ECHO)
    done = run_ostinato(scripted, tmp_path, "completion", shell, env=WITH_ECHO)
    assert done.returncode == 0
    for command in COMMANDS:
        assert command in done.stdout
    assert "--model" in done.stdout or "-l model" in done.stdout
    assert "Prepare the echo provider." in done.stdout


def test_an_unknown_shell_is_a_usage_error(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "completion", "tcsh")
    assert done.returncode == 2
    assert "invalid choice: 'tcsh'" in done.stderr
