"""What the ``ostinato`` parser declares, as plain data: commands, their help, options.

Shell completion and ``ostinato help`` read the parser through this table instead of
keeping their own lists, so a new option or a plugin's command is completed and listed
the moment it exists. It reads argparse and must not build or run anything.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Final

__all__ = ["COMPLETES_COMMANDS", "CommandEntry", "command_entries", "subcommand_parsers"]

#: A subcommand whose parser has this default set (``set_defaults(**{COMPLETES_COMMANDS:
#: True})``) takes a command name as argument (``ostinato help chat``).
COMPLETES_COMMANDS: Final = "completes_commands"


@dataclass(frozen=True, slots=True)
class CommandEntry:
    """One subcommand: its name, one-line help, option strings and fixed words.

    Attributes:
        name: the subcommand (``chat``).
        help: its one-line help.
        options: its option strings (``--model``, ``-m``...), ``--help`` included.
        words: the values its positional arguments accept (``bash``, ``zsh``...), if fixed.
    """

    name: str
    help: str
    options: tuple[str, ...]
    words: tuple[str, ...]


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands' parsers, by name (in declaration order)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def command_entries(parser: argparse.ArgumentParser) -> list[CommandEntry]:
    """Every subcommand of ``parser``, in declaration order."""
    helps = _helps(parser)
    parsers = subcommand_parsers(parser)
    entries = []
    for name, sub in parsers.items():
        options = tuple(s for a in sub._actions for s in a.option_strings)
        if sub.get_default(COMPLETES_COMMANDS):
            entries.append(CommandEntry(name, helps.get(name, ""), options, tuple(parsers)))
            continue
        words = tuple(
            str(choice)
            for a in sub._actions
            if not a.option_strings and a.choices is not None
            for choice in a.choices
        )
        entries.append(CommandEntry(name, helps.get(name, ""), options, words))
    return entries
