"""The ``ostinato`` command line: ``ostinato chat`` (ask a model, watch its tool calls),
``ostinato models``, ``ostinato plugins``, ``ostinato config`` and the subcommands plugins
register with ``register_commands``.

Installed as the console script ``ostinato`` (``ostinato.cli:main``); also runnable as
``python -m ostinato.cli``.
"""

from ostinato.cli._main import BUILTIN_COMMANDS, EXIT_CONFIGURATION_ERROR, build_parser, main

__all__ = ["BUILTIN_COMMANDS", "EXIT_CONFIGURATION_ERROR", "build_parser", "main"]
