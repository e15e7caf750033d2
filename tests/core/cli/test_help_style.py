"""Every help line of ``ostinato`` and of its commands (the installed plugins' included)
has one style: it starts in lower case and ends without a full stop, as argparse's own
(``show this help message and exit``)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

import pytest

from ostinato.cli import main
from ostinato.cli._command_table import subcommand_parsers
from ostinato.cli._context import load_context
from ostinato.cli._main import command_table


def _helps(parser: argparse.ArgumentParser, where: str) -> Iterator[tuple[str, str]]:
    """``(where, help)`` of each argument of ``parser`` and of its subcommands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield f"{where} {choice.dest}", choice.help or ""
            for name, sub in action.choices.items():
                yield from _helps(sub, f"{where} {name}")
        elif action.help and action.help is not argparse.SUPPRESS:
            yield f"{where} {'/'.join(action.option_strings) or action.dest}", action.help


def _plugin_parser(name: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser | None:
    """The parser a plugin's command prints its ``--help`` from."""
    seen: list[argparse.ArgumentParser] = []

    def record(self: argparse.ArgumentParser, file: object = None) -> None:
        seen.append(self)

    monkeypatch.setattr(argparse.ArgumentParser, "print_help", record)
    with contextlib.suppress(SystemExit):  # argparse exits after the help
        main([name, "--help"])
    monkeypatch.undo()
    return seen[0] if seen else None


def _every_help(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    parser, commands = command_table(load_context())
    found = list(_helps(parser, "ostinato"))
    for name in subcommand_parsers(parser):
        if name in commands:
            plugin_parser = _plugin_parser(name, monkeypatch)
            if plugin_parser is not None:
                found += _helps(plugin_parser, f"ostinato {name}")
    return found


def test_every_help_line_starts_in_lower_case_and_has_no_full_stop(monkeypatch):
    helps = _every_help(monkeypatch)
    assert len(helps) > 40  # the built-in commands' at least
    odd = [
        f"{where}: {text!r}"
        for where, text in helps
        if text[:1].isupper() or text.rstrip().endswith(".")
    ]
    assert odd == [], "help lines in another style:\n" + "\n".join(odd)
