"""The ``ostinato`` command: built-in subcommands, and those plugins register.

Exit codes: 0 success, 1 a command failed, 2 a usage or configuration error (bad
settings, broken or clashing plugins), 141 the output's reader went away (``ostinato ... |
head``: the rest of the output is dropped quietly, as the command a shell pipeline ends
with SIGPIPE). Errors are printed as one line with the fix, followed by their details;
warnings likewise; an unexpected exception (a plugin's or a tools file's bug) too, its
traceback only with ``--debug``.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn, TextIO

from ostinato.cli._approve_command import add_approve_command
from ostinato.cli._chat_command import add_chat_command
from ostinato.cli._command_table import subcommand_parsers
from ostinato.cli._completion_command import add_completion_command
from ostinato.cli._config_command import add_config_command
from ostinato.cli._context import CliContext, load_context
from ostinato.cli._help_command import add_help_command
from ostinato.cli._models_command import add_models_command
from ostinato.cli._output import (
    ERROR_STYLE,
    ErrorStyle,
    error_json,
    print_error,
    print_json,
    print_warning,
    summarize,
)
from ostinato.cli._plugins_command import add_plugins_command
from ostinato.cli._worker_command import add_worker_command
from ostinato.errors import ConfigurationError, OstinatoError, PluginError
from ostinato.plugins import Command

__all__ = [
    "BUILTIN_COMMANDS",
    "EXIT_BROKEN_PIPE",
    "EXIT_CONFIGURATION_ERROR",
    "RESERVED_COMMANDS",
    "build_parser",
    "command_table",
    "main",
]

#: Exit code of usage and configuration errors (argparse's own, too).
EXIT_CONFIGURATION_ERROR: Final = 2
#: Exit code when the reader of the output went away (``ostinato models | head -1``):
#: 128 + SIGPIPE, what a shell reports for ``cat`` or ``yes`` in the same pipeline, so
#: ``set -o pipefail`` scripts treat ostinato like them.
EXIT_BROKEN_PIPE: Final = 141

#: Built-in subcommands: name -> function declaring it on the subparsers. Plugins cannot
#: take these names.
BUILTIN_COMMANDS: Final[dict[str, Callable[[Any], None]]] = {
    "chat": add_chat_command,
    "models": add_models_command,
    "plugins": add_plugins_command,
    "config": add_config_command,
    "worker": add_worker_command,
    "approve": add_approve_command,
    "completion": add_completion_command,
    "help": add_help_command,
}
#: The command names plugins cannot take: the built-in ones.
RESERVED_COMMANDS: Final = frozenset(BUILTIN_COMMANDS)


def _plugin_commands(context: CliContext) -> dict[str, Command]:
    if context.registry is None:
        return {}
    commands = {}
    for name, registration in context.registry.commands.items():
        if name in RESERVED_COMMANDS:
            warnings.warn(
                f"{registration.plugin.label} registers the command {name!r}, which is "
                f"built into ostinato; it is ignored\n"
                f"fix: rename the plugin's command",
                stacklevel=2,
            )
            continue
        commands[name] = registration.value
    return commands


class _Parser(argparse.ArgumentParser):
    """argparse's parser; a usage error is also a JSON object on stdout with ``--json``."""

    def error(self, message: str) -> NoReturn:
        if ERROR_STYLE.get().as_json:
            fix = f"fix: `{self.prog} --help` shows the usage"
            print_json(error_json(f"{self.prog}: {message}\n{fix}", 2), sys.stdout)
        super().error(message)


_DEBUG_HELP: Final = "on an error, also print its traceback (where a tools file or plugin raised)"


def build_parser(context: CliContext, commands: dict[str, Command]) -> argparse.ArgumentParser:
    """The argument parser: built-in subcommands, then the plugins' (for ``--help``)."""
    from ostinato import __version__

    epilog = None
    if context.error is not None:
        epilog = f"plugin commands are unavailable: {summarize(str(context.error))[0]}"
    parser = _Parser(
        prog="ostinato",
        description="ostinato: the tool-calling loop of LLM applications, and its plugins.",
        epilog=epilog,
    )
    parser.add_argument("--version", action="version", version=f"ostinato {__version__}")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for declare in BUILTIN_COMMANDS.values():
        declare(subparsers)
    for sub in subcommand_parsers(parser).values():
        sub.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP
        )
    for name, command in sorted(commands.items()):
        # Only for --help: plugin commands are dispatched before argparse sees their args.
        subparsers.add_parser(name, help=command.help, add_help=False)
    return parser


def command_table(context: CliContext) -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The parser of every command, and the plugins' commands by name."""
    commands = _plugin_commands(context)
    return build_parser(context, commands), commands


def _run(argv: list[str], context: CliContext) -> int:
    commands = _plugin_commands(context)
    if argv and argv[0] in commands:
        return commands[argv[0]].run(argv[1:])
    parser = build_parser(context, commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    handler: Callable[[argparse.Namespace, CliContext], int] = args.handler
    return handler(args, context)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    print_warning(str(message), file)


def _flush_stdout() -> None:
    """Write what is still buffered now, so that a closed pipe shows here, not at exit."""
    stdout = sys.stdout
    if stdout is not None and not stdout.closed:
        stdout.flush()


def _discard_output() -> None:
    """Point standard output and error at the null device (Python's advice for SIGPIPE):
    nothing written later, not even the interpreter's last flush, meets the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (AttributeError, OSError, ValueError):
                continue  # not a real file (replaced, closed): nothing reaches the pipe
    finally:
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ostinato`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    When the reader of the output goes away (``ostinato chat ... | head``), the rest of
    the output is dropped without a traceback and the exit code is
    :data:`EXIT_BROKEN_PIPE`.
    """
    try:
        try:
            return _main(list(sys.argv[1:] if argv is None else argv))
        finally:
            _flush_stdout()  # also after --help and --version, which exit from argparse
    except BrokenPipeError:
        _discard_output()
        return EXIT_BROKEN_PIPE


def _error_style(arguments: list[str]) -> ErrorStyle:
    """``--debug`` before the command or among a built-in command's options; ``--json``
    among a built-in command's options (a plugin command's arguments are its own)."""
    debug = as_json = False
    in_command = False
    for argument in arguments:
        if argument == "--":
            break
        if not argument.startswith("-"):
            if in_command:
                continue
            if argument not in BUILTIN_COMMANDS:
                break  # a plugin command (or a usage error)
            in_command = True
        debug = debug or argument == "--debug"
        as_json = as_json or (in_command and argument == "--json")
    return ErrorStyle(as_json=as_json, debug=debug)


def _main(arguments: list[str]) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        context = load_context()
        ERROR_STYLE.set(_error_style(arguments))
        try:
            return _run(arguments, context)
        except (ConfigurationError, PluginError) as exc:
            print_error(str(exc), error=exc, exit_code=EXIT_CONFIGURATION_ERROR)
            return EXIT_CONFIGURATION_ERROR
        except OstinatoError as exc:
            print_error(str(exc), error=exc, exit_code=1)
            return 1
        except BrokenPipeError:
            raise
        except Exception as exc:  # a plugin's or a tools file's own bug: one line, not a dump
            fix = "" if ERROR_STYLE.get().debug else "\nfix: run again with --debug to see where"
            print_error(f"{type(exc).__name__}: {exc}{fix}", error=exc, exit_code=1)
            return 1
