"""``ostinato help [COMMAND]``: the same text as ``ostinato [COMMAND] --help``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ostinato.cli._command_table import COMPLETES_COMMANDS, subcommand_parsers
from ostinato.errors import ConfigurationError

if TYPE_CHECKING:
    from ostinato.cli._context import CliContext

__all__ = ["add_help_command", "run_help"]


def add_help_command(subparsers: Any) -> None:
    """Declare ``ostinato help [COMMAND]``."""
    parser = subparsers.add_parser(
        "help",
        help="show the commands, or one command's options",
        description="Show the commands (no COMMAND) or COMMAND's options, as --help does.",
    )
    parser.add_argument("topic", nargs="?", metavar="COMMAND", help="the command to explain")
    parser.set_defaults(handler=run_help, **{COMPLETES_COMMANDS: True})


def run_help(args: argparse.Namespace, context: CliContext) -> int:
    """Print the help asked for; exit code 0 (a plugin command's: its own).

    Raises:
        ConfigurationError: ``COMMAND`` is not a command.
    """
    from ostinato.cli._main import command_table

    parser, plugin_commands = command_table(context)
    if args.topic is None:
        parser.print_help()
        return 0
    if args.topic in plugin_commands:
        return plugin_commands[args.topic].run(["--help"])
    parsers = subcommand_parsers(parser)
    if args.topic not in parsers:
        raise ConfigurationError(
            f"no command {args.topic!r} (commands: {', '.join(parsers)})\n"
            "fix: `ostinato help` lists them"
        )
    parsers[args.topic].print_help()
    return 0
