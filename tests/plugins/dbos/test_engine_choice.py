"""``ostinato approve`` and ``ostinato worker`` (core's commands) with the DBOS engine
installed beside a second one: ``--engine dbos`` picks it, and without the option the
error names both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ostinato.cli._context import CliContext
from ostinato.cli._main import build_parser
from ostinato.config import create_plugin_manager, load_core_settings
from ostinato.errors import ConfigurationError
from ostinato.plugins import collect_registry, hookimpl


class _SecondEngine:
    """A second durable engine, registered as a plugin object (never opened here)."""

    @hookimpl
    def register_durable_engines(self, register: Any) -> None:
        register("second", lambda context: None)


def _run(*argv: str) -> int:
    settings = load_core_settings()
    plugins = {"second-engine": _SecondEngine()}
    manager = create_plugin_manager(settings, plugins, entry_points=True)  # dbos too
    context = CliContext(settings, manager, collect_registry(manager))
    args = build_parser(context, {}).parse_args(list(argv))
    code: int = args.handler(args, context)
    return code


def test_engine_dbos_picks_it_beside_a_second_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", f"sqlite:///{tmp_path / 'dbos.sqlite3'}")
    for command in ("worker", "approve"):
        with pytest.raises(ConfigurationError) as raised:
            _run(command)
        assert str(raised.value) == (
            f"ostinato {command} found 2 durable engines installed: dbos, second\n"
            f"fix: choose one with --engine: ostinato {command} --engine dbos"
        )
    assert _run("approve", "--list", "--engine", "dbos") == 0
    assert capsys.readouterr().out == "no durable turn waits for a decision\n"
