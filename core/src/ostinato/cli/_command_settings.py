"""The plugin settings every ``ostinato`` command builds its client from.

A program's ``ostinato.chat_client()`` and a command can want different defaults: the
memory plugin keeps a program's conversations in memory unless told otherwise, but a
command's conversations must outlive its process (``ostinato chat -c ID`` continues them,
``ostinato logs`` lists them). So a plugin's settings class may define
``for_commands()``, returning the settings as commands use them; every command (``chat``,
the commands built on :func:`~ostinato.cli.open_client` such as ``serve``, and the
durable worker) loads its plugins' settings here, so one method per plugin decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

    from ostinato.config import AutoConfiguration
    from ostinato.plugins import Registry

__all__ = ["FOR_COMMANDS", "command_container", "command_plugin_settings", "for_commands"]

#: The method a plugin's settings class may define: its settings as commands use them.
FOR_COMMANDS: Final = "for_commands"


def for_commands(settings: BaseSettings) -> BaseSettings:
    """``settings`` as ``ostinato`` commands use them: its ``for_commands()`` when its
    class defines one, else unchanged."""
    adjust = getattr(settings, FOR_COMMANDS, None)
    if not callable(adjust):
        return settings
    adjusted: BaseSettings = adjust()
    return adjusted


def command_plugin_settings(registry: Registry) -> dict[str, BaseSettings]:
    """Every registered plugin's settings, loaded from the environment, as ``ostinato``
    commands use them (keyed by prefix, as ``load_plugin_settings`` returns them).

    A settings class with bad values is left out rather than refused: a setting is checked
    where it is used, so the factory that reads it loads it again and gets the error naming
    the variable (a bad ``OSTINATO_SERVE_PORT`` does not stop ``ostinato chat``).

    Raises:
        PluginError: a registered class is not a valid settings class.
    """
    from ostinato.settings import load_plugin_settings

    loaded = load_plugin_settings(registry, strict=False)
    return {prefix: for_commands(s) for prefix, s in loaded.items()}


def command_container() -> AutoConfiguration:
    """The auto-configuration of a command that builds its client from the environment
    alone (the durable worker): ``ostinato.chat_client()``'s, with the plugin settings
    of :func:`command_plugin_settings`.

    Raises:
        ConfigurationError: a variable has a bad value.
        PluginError: a plugin is broken (with ``OSTINATO_STRICT_PLUGINS=1``) or two
            plugins registered the same name.
    """
    from ostinato.config import build_container

    base = build_container()
    registry = base.registry()
    return build_container(
        settings=base.settings(),
        plugin_manager=base.plugin_manager(),
        registry=registry,
        plugin_settings=command_plugin_settings(registry),
    )
