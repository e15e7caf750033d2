"""``ostinato config``: the effective settings of core and every plugin, and their sources.

Two unset settings still decide something, and the report says what: the tool advisor
(``OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR``: a single installed replacement, else
``default``) and the model (``OSTINATO_MODEL``: the local default when its provider is
installed).
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from pydantic_settings import BaseSettings

from ostinato.cli._context import CliContext
from ostinato.cli._output import error_json, print_error, print_json, render_table
from ostinato.config._default_model import LOCAL_PROVIDER, default_model
from ostinato.config._tool_advisor import select_tool_advisor
from ostinato.errors import ConfigurationError, OstinatoError
from ostinato.plugins import Registry, ToolSetNotEnabledWarning, collect_registry
from ostinato.settings import (
    Settings,
    SettingValue,
    describe_settings,
    describe_unloaded,
    load_plugin_settings,
    load_settings,
)
from ostinato.settings._plugin_settings import warn_about_unknown_variables

#: The exit code when settings have bad values (the report is still shown).
_EXIT_BAD_SETTINGS = 2

__all__ = [
    "add_config_command",
    "config_report",
    "degraded_report",
    "run_config",
]


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


def _values(values: list[SettingValue], bad: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    return [
        {
            "variable": v.field.env_name,
            "path": ".".join(v.field.path),
            "value": v.value,
            "source": v.source,
            "from": v.variable,
            "secret": v.field.secret,
            **({"bad": True} if v.variable in bad or v.field.env_name in bad else {}),
        }
        for v in values
    ]


_ADVISOR_VARIABLE = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"
_MODEL_VARIABLE = "OSTINATO_MODEL"


def _effective(settings: Settings, registry: Registry) -> dict[str, tuple[str | None, str]]:
    """What unset settings amount to: ``{variable: (effective value, why)}``."""
    effective: dict[str, tuple[str | None, str]] = {}
    if settings.chat_client.tool_calling.advisor is None:
        try:
            choice = select_tool_advisor(None, registry.tool_advisors)
        except ConfigurationError as error:
            first = str(error).splitlines()[0].split(":")[0]
            effective[_ADVISOR_VARIABLE] = (None, f"{first}: set {_ADVISOR_VARIABLE} to choose")
        else:
            effective[_ADVISOR_VARIABLE] = (
                choice.name,
                f"{choice.reason} ({choice.plugin.source})",
            )
    if settings.model is None:
        model = default_model(registry.chat_models)
        if model is not None:
            why = f"the local default (the {LOCAL_PROVIDER} provider is installed)"
            effective[_MODEL_VARIABLE] = (model, why)
    return effective


def config_report(settings: Settings, registry: Registry) -> dict[str, Any]:
    """The data ``ostinato config`` shows (its ``--json`` form).

    An unset setting that still decides something (the tool advisor, the model) has
    ``effective`` (the value it amounts to, ``None`` when nothing is chosen) and
    ``effective_source`` (why) in its entry.

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
    core = _values(describe_settings(settings))
    effective = _effective(settings, registry)
    for entry in core:
        if entry["variable"] in effective:
            entry["effective"], entry["effective_source"] = effective[entry["variable"]]
    return {"core": {"prefix": "OSTINATO_", "settings": core}, "plugins": plugins}


def _table(entries: list[dict[str, Any]]) -> str:
    rows = []
    for entry in entries:
        source = entry["source"]
        if entry["from"] and entry["from"] != entry["variable"]:
            source = f"{source} ({entry['from']})"
        value = entry["value"] or "(unset)"
        if "effective" in entry:
            value, source = entry["effective"] or "(none)", entry["effective_source"]
        rows.append(
            [entry["variable"], f"{value} (bad value)" if entry.get("bad") else value, source]
        )
    return render_table(["VARIABLE", "VALUE", "SOURCE"], rows, indent="  ")


def _described(settings_class: type[BaseSettings]) -> list[SettingValue]:
    """The class's settings, loaded; as set (bad values included) when they do not load."""
    try:
        return describe_settings(load_settings(settings_class))
    except ConfigurationError:
        return describe_unloaded(settings_class)


def degraded_report(error: ConfigurationError, registry: Registry | None) -> dict[str, Any]:
    """The report of ``ostinato config`` when settings have bad values: every setting as
    set, the bad ones marked, and the problems of ``error`` (one per variable).

    ``registry`` is the plugins' registry (``None``: the plugins are loaded here, as
    ``OSTINATO_LOAD_PLUGINS`` / ``OSTINATO_DISABLE_PLUGINS`` select them).
    """
    from ostinato.config._boot import create_plugin_manager, plugin_selection

    problems = [line.strip() for line in str(error).splitlines() if line.startswith("  ")]
    bad = frozenset(line.partition("=")[0] for line in problems)
    if registry is None:
        try:
            registry = collect_registry(create_plugin_manager(plugin_selection()))
        except OstinatoError:
            registry = None  # a broken plugin: core's settings are still shown
    plugins = {}
    for prefix, registration in (registry.settings if registry is not None else {}).items():
        plugins[registration.plugin.name] = {
            "prefix": prefix,
            "distribution": registration.plugin.distribution,
            "version": registration.plugin.version,
            "settings": _values(_described(registration.value), bad),
        }
    return {
        "core": {"prefix": "OSTINATO_", "settings": _values(_described(Settings), bad)},
        "plugins": plugins,
        "problems": problems,
    }


def run_config(args: argparse.Namespace, context: CliContext) -> int:
    """Print the settings report; exit code 0, or 2 when settings have bad values (the
    problems are printed first, then every setting as set, the bad ones marked)."""
    if isinstance(context.error, ConfigurationError):
        return _print(args, degraded_report(context.error, None), [], context.error)
    settings, _, registry = context.loaded()
    try:
        report = config_report(settings, registry)
    except ConfigurationError as error:  # a plugin's settings
        return _print(args, degraded_report(error, registry), [], error)
    report["tool_sets_not_enabled"] = _warn_tool_sets_not_enabled(settings, registry)
    return _print(args, report, warn_about_unknown_variables(registry), None)


def _warn_tool_sets_not_enabled(settings: Settings, registry: Registry) -> list[str]:
    """The warning building a client gives for each configured tool set that is not
    enabled, given here too; the messages, for ``--json``."""
    from ostinato.config import tool_sets_not_enabled

    notes = tool_sets_not_enabled(settings, registry)
    for note in notes:
        warnings.warn(note, ToolSetNotEnabledWarning, stacklevel=2)
    return notes


def _print(
    args: argparse.Namespace,
    report: dict[str, Any],
    unknown: list[str],
    error: ConfigurationError | None,
) -> int:
    code = 0 if error is None else _EXIT_BAD_SETTINGS
    if error is not None:
        print_error(str(error), error=error, exit_code=code, with_json=False)
    if args.json:
        failure = error_json(str(error), code, error) if error is not None else {}
        print_json({**report, "unknown_variables": unknown, **failure})
        return code
    print(f"core (prefix {report['core']['prefix']})")
    print(_table(report["core"]["settings"]))
    for name, plugin in report["plugins"].items():
        where = f"{plugin['distribution']} {plugin['version'] or ''}".strip()
        print(f"\n{name} ({where or 'explicit'}; prefix {plugin['prefix']})")
        print(_table(plugin["settings"]))
    return code
