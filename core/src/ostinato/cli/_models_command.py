"""``ostinato models``: the model providers the installed plugins serve, and which model
``ostinato chat`` would use now."""

from __future__ import annotations

import argparse
import inspect
import re
from typing import Any

from ostinato.cli._context import CliContext
from ostinato.cli._model_choice import (
    LOCAL_COMMAND,
    choose_model,
    local_model_ready,
)
from ostinato.cli._output import print_json, render_table
from ostinato.errors import ConfigurationError
from ostinato.plugins import Registry
from ostinato.settings import Settings

__all__ = ["add_models_command", "models_report", "run_models"]

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def add_models_command(subparsers: Any) -> None:
    """Declare ``ostinato models [--json]``."""
    parser = subparsers.add_parser(
        "models",
        help="list the model providers the installed plugins serve, and the model in use",
        description=(
            "List each chat model provider (OSTINATO_MODEL=provider:model) with the plugin "
            "that registers it, and say which model `ostinato chat` would use."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(handler=run_models)


def _describe(factory: Any) -> str:
    """What the provider is: the description its plugin declared
    (:func:`~ostinato.plugins.provider_plugin`'s ``description``, found on the object the
    factory is a method of, or a ``chat_model_description`` attribute of the factory),
    else the first paragraph of the factory's docstring, without reStructuredText markup."""
    for owner in (factory, getattr(factory, "__self__", None)):
        declared = getattr(owner, "chat_model_description", None)
        if isinstance(declared, str) and declared:
            return declared
    doc = inspect.getdoc(factory) or ""
    text = " ".join(doc.split("\n\n", 1)[0].split())
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text).replace("``", "")
    return text


def models_report(settings: Settings, registry: Registry) -> dict[str, Any]:
    """The data ``ostinato models`` shows (its ``--json`` form)."""
    providers = [
        {
            "provider": name,
            "plugin": registration.plugin.name,
            "distribution": registration.plugin.distribution,
            "version": registration.plugin.version,
            "select": f"OSTINATO_MODEL={name}:<model>",
            "description": _describe(registration.value),
        }
        for name, registration in sorted(registry.chat_models.items())
    ]
    chat: dict[str, Any]
    try:
        choice = choose_model(None, settings.model, registry)
        chat = {"model": choice.model, "source": choice.source}
        if choice.is_local_default:
            chat["ready"] = local_model_ready(registry)
    except ConfigurationError as exc:
        chat = {"model": None, "error": str(exc)}
    return {"providers": providers, "chat": chat}


def run_models(args: argparse.Namespace, context: CliContext) -> int:
    """Print the providers and the model in use; exit code 0."""
    settings, _, registry = context.loaded()
    report = models_report(settings, registry)
    if args.json:
        print_json(report)
        return 0
    rows = [
        [
            p["provider"],
            f"{p['distribution'] or p['plugin']} {p['version'] or ''}".strip(),
            p["description"] or "-",
        ]
        for p in report["providers"]
    ]
    if rows:
        print(render_table(["PROVIDER", "PLUGIN", "DESCRIPTION"], rows))
    else:
        print(
            "no model provider is installed: pip install ostinato-openai (or "
            "ostinato-llamacpp for a local model)"
        )
    chat = report["chat"]
    print()
    if chat["model"] is None:
        first, *rest = chat["error"].splitlines()
        print(f"ostinato chat: no model: {first}")
        for line in rest:
            print(f"  {line.strip()}")
    else:
        print(f"ostinato chat uses {chat['model']} ({chat['source']})")
        if chat.get("ready") is False:
            print(f"  not set up yet: `ostinato {LOCAL_COMMAND} setup` prepares it")
    print("choose with --model provider:model or OSTINATO_MODEL=provider:model")
    return 0
