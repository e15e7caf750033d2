"""``ostinato config``: the effective settings of core and every plugin, and their sources."""

from __future__ import annotations

import argparse
from typing import Any

from pydantic_settings import BaseSettings

from ostinato.cli._context import CliContext
from ostinato.cli._output import print_json, render_table
from ostinato.plugins import Registry
from ostinato.settings import (
    Settings,
    SettingValue,
    describe_settings,
    load_plugin_settings,
)
from ostinato.settings._plugin_settings import warn_about_unknown_variables

__all__ = ["add_config_command", "config_report", "run_config"]


def add_config_command(subparsers: Any) -> None:
    """Declare ``ostinato config [--json]``."""
    parser = subparsers.add_parser(
        "config",
        help="show the effective settings of core and every plugin, and where each came from",
        description=(
            "Show every setting: its environment variable, its value (secrets masked) and "
            "its source (env, .env or default)."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(handler=run_config)


def _values(values: list[SettingValue]) -> list[dict[str, Any]]:
    return [
        {
            "variable": v.field.env_name,
            "path": ".".join(v.field.path),
            "value": v.value,
            "source": v.source,
            "from": v.variable,
            "secret": v.field.secret,
        }
        for v in values
    ]


def config_report(settings: Settings, registry: Registry) -> dict[str, Any]:
    """The data ``ostinato config`` shows (its ``--json`` form).

    Raises:
        ConfigurationError: a plugin setting has a bad value (all of them listed).
        PluginError: a plugin registered an invalid settings class.
    """
    loaded: dict[str, BaseSettings] = load_plugin_settings(registry)
    plugins = {}
    for prefix, registration in registry.settings.items():
        plugins[registration.plugin.name] = {
            "prefix": prefix,
            "distribution": registration.plugin.distribution,
            "version": registration.plugin.version,
            "settings": _values(describe_settings(loaded[prefix])),
        }
    return {
        "core": {"prefix": "OSTINATO_", "settings": _values(describe_settings(settings))},
        "plugins": plugins,
    }


def _table(entries: list[dict[str, Any]]) -> str:
    rows = []
    for entry in entries:
        source = entry["source"]
        if entry["from"] and entry["from"] != entry["variable"]:
            source = f"{source} ({entry['from']})"
        rows.append([entry["variable"], entry["value"] or "(unset)", source])
    return render_table(["VARIABLE", "VALUE", "SOURCE"], rows, indent="  ")


def run_config(args: argparse.Namespace, context: CliContext) -> int:
    """Print the settings report; exit code 0."""
    settings, _, registry = context.loaded()
    report = config_report(settings, registry)
    unknown = warn_about_unknown_variables(registry)
    if args.json:
        print_json({**report, "unknown_variables": unknown})
        return 0
    print(f"core (prefix {report['core']['prefix']})")
    print(_table(report["core"]["settings"]))
    for name, plugin in report["plugins"].items():
        where = f"{plugin['distribution']} {plugin['version'] or ''}".strip()
        print(f"\n{name} ({where or 'explicit'}; prefix {plugin['prefix']})")
        print(_table(plugin["settings"]))
    return 0
