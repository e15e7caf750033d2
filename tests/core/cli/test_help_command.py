"""``ostinato help [COMMAND]``, and the built-in command names the docs list."""

from __future__ import annotations

import re

import pytest

from ostinato.cli._main import RESERVED_COMMANDS
from tests.core.cli.cli_process import ROOT, run_ostinato

ECHO = """
    from ostinato.plugins import hookimpl

    def run(argv):
        print("echo-setup usage: ostinato echo-setup [--force]", argv)
        return 0

    @hookimpl
    def register_commands(register):
        register("echo-setup", "Prepare the echo provider.", run)
"""


def test_help_lists_the_commands(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "help")
    assert done.returncode == 0
    plain = run_ostinato(scripted, tmp_path, "--help")
    assert done.stdout == plain.stdout
    for command in RESERVED_COMMANDS:
        assert command in done.stdout


def test_help_of_a_command_is_its_help(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "help", "chat")
    assert done.returncode == 0
    assert done.stdout == run_ostinato(scripted, tmp_path, "chat", "--help").stdout
    assert "--model" in done.stdout


def test_help_of_a_plugin_command_asks_the_command(scripted, tmp_path):
    scripted.plugin("echo", ECHO)
    env = {"OSTINATO_LOAD_PLUGINS": "scripted,echo"}
    done = run_ostinato(scripted, tmp_path, "help", "echo-setup", env=env)
    assert (done.returncode, done.stdout) == (
        0,
        "echo-setup usage: ostinato echo-setup [--force] ['--help']\n",
    )


def test_help_of_an_unknown_command_is_an_error(scripted, tmp_path):
    done = run_ostinato(scripted, tmp_path, "help", "chta")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ostinato: error: no command 'chta' (commands: chat, ")
    assert done.stderr.rstrip().endswith("fix: `ostinato help` lists them")


@pytest.mark.parametrize("page", ["docs/cli.md", "docs/plugins.md"])
def test_the_docs_list_exactly_the_reserved_command_names(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    line = re.search(r"Plugins cannot take the names of the built-in commands: (.*?)\.\n", text)
    assert line is not None, f"{page} does not list the built-in command names"
    assert set(re.findall(r"`([a-z-]+)`", line.group(1))) == set(RESERVED_COMMANDS)
