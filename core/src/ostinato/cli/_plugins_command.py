"""``ostinato plugins``: which plugins loaded, what each registered, which failed and why."""

from __future__ import annotations

import argparse
from typing import Any

from ostinato.cli._context import CliContext
from ostinato.cli._output import print_json, render_table
from ostinato.config import Settings, ToolAdvisorChoice, select_tool_advisor
from ostinato.errors import OstinatoError
from ostinato.plugins import KINDS, PluginInfo, PluginManager, Registry

__all__ = ["add_plugins_command", "plugins_report", "run_plugins"]

_KIND_NAMES = {attribute: kind for _, attribute, kind in KINDS}


def add_plugins_command(subparsers: Any) -> None:
    """Declare ``ostinato plugins [--json]``."""
    parser = subparsers.add_parser(
        "plugins",
        help="list the installed plugins, what they register and which failed",
        description="List the plugins: loaded, failed and skipped, and the active tool advisor.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(handler=run_plugins)


def _plugin(info: PluginInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "distribution": info.distribution,
        "version": info.version,
        "origin": str(info.origin),
        "value": info.value,
    }


def plugins_report(
    manager: PluginManager, registry: Registry, settings: Settings
) -> dict[str, Any]:
    """The data ``ostinato plugins`` shows (its ``--json`` form)."""
    choice: ToolAdvisorChoice | None = None
    try:
        choice = select_tool_advisor(
            settings.chat_client.tool_calling.advisor, registry.tool_advisors
        )
        tool_advisor: dict[str, Any] = {
            "name": choice.name,
            "plugin": choice.plugin.name,
            "reason": choice.reason,
        }
    except OstinatoError as exc:
        tool_advisor = {"name": None, "plugin": None, "error": str(exc)}
    return {
        "plugins": [
            {**_plugin(info), "registered": registry.contributions_of(info.name)}
            for info in manager.plugins
        ],
        "tool_advisor": tool_advisor,
        "failed": [
            {**_plugin(f.plugin), "phase": f.phase, "error": f.error, "message": f.message}
            for f in manager.failures
        ],
        "skipped": [{**_plugin(s.plugin), "reason": s.reason} for s in manager.skipped],
    }


def _registered(registered: dict[str, list[str]]) -> str:
    parts = [f"{_KIND_NAMES[kind]}: {', '.join(names)}" for kind, names in registered.items()]
    return "; ".join(parts) or "-"


def run_plugins(args: argparse.Namespace, context: CliContext) -> int:
    """Print the plugin report; exit code 0."""
    settings, manager, registry = context.loaded()
    report = plugins_report(manager, registry, settings)
    if args.json:
        print_json(report)
        return 0
    rows = [
        [p["name"], p["distribution"] or "-", p["version"] or "-", _registered(p["registered"])]
        for p in report["plugins"]
    ]
    print(render_table(["PLUGIN", "DISTRIBUTION", "VERSION", "REGISTERED"], rows))
    advisor = report["tool_advisor"]
    print()
    if advisor["name"] is not None:
        print(f"tool advisor: {advisor['name']} (from {advisor['plugin']}; {advisor['reason']})")
    else:
        first, *rest = advisor["error"].splitlines()
        print(f"tool advisor: none chosen: {first}")
        for line in rest:
            print(f"  {line.strip()}")
    if report["failed"]:
        print("\nfailed:")
        for failure in report["failed"]:
            where = failure["distribution"] or "explicit"
            print(f"  {failure['name']} ({where} {failure['version'] or ''}): {failure['error']}")
    if report["skipped"]:
        print("\nskipped:")
        for skipped in report["skipped"]:
            print(f"  {skipped['name']} ({skipped['distribution'] or '-'}): {skipped['reason']}")
    return 0
