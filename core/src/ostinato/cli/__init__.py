"""The ``ostinato`` command line: ``ostinato chat`` (ask a model, watch its tool calls),
``ostinato models``, ``ostinato plugins``, ``ostinato config`` and the subcommands plugins
register with ``register_commands``.

Installed as the console script ``ostinato`` (``ostinato.cli:main``); also runnable as
``python -m ostinato.cli``.

A plugin's command that works with a model takes ``ostinato chat``'s client options and
builds its client the same way: :func:`add_client_options` declares them on its parser,
:func:`open_client` builds the :class:`ConfiguredClient` from the parsed options. A
command that builds its client from the environment alone (the durable worker) uses
:func:`command_container`; both load the plugins' settings as every command does
(:func:`command_plugin_settings`: a settings class's ``for_commands()``, e.g. memory in
SQLite unless set otherwise).
"""

from ostinato.cli._client_setup import ConfiguredClient, add_client_options, open_client
from ostinato.cli._command_settings import command_container, command_plugin_settings
from ostinato.cli._main import BUILTIN_COMMANDS, EXIT_CONFIGURATION_ERROR, build_parser, main

__all__ = [
    "BUILTIN_COMMANDS",
    "EXIT_CONFIGURATION_ERROR",
    "ConfiguredClient",
    "add_client_options",
    "build_parser",
    "command_container",
    "command_plugin_settings",
    "main",
    "open_client",
]
