"""``ostinato worker`` and ``ostinato approve`` are core's commands: they use the one
durable engine installed, the one ``--engine NAME`` names when several are, and say which
distribution to install when none is."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from ostinato.cli._context import CliContext
from ostinato.cli._main import build_parser
from ostinato.config import create_plugin_manager, load_core_settings
from ostinato.durable import EngineOperations, TurnStatus
from ostinato.errors import ConfigurationError, DurableTurnError
from ostinato.messages import ToolCall
from ostinato.plugins import collect_registry, hookimpl
from ostinato.tools import ApprovalDecision
from ostinato.transport._engine import ENGINE_VARIABLE, check_engine
from tests.core.cli.cli_process import run_main

pytestmark = pytest.mark.usefixtures("fake_distributions")  # the installed engines hidden


class _Worker:
    def __init__(self, engine: _Engine, options: dict[str, Any]) -> None:
        self.engine = engine
        self.options = options
        self.executor_id = options["executor_id"] or f"{engine.name}-0"

    @property
    def queue(self) -> str:
        return f"{self.engine.name}-turns"

    def start(self) -> None:
        self.engine.log.append("start")
        os.kill(os.getpid(), signal.SIGTERM)  # as a user stopping it at once

    def stop(self, grace_seconds: float | None = None) -> Sequence[str]:
        self.engine.log.append(f"stop {grace_seconds}")
        return ["t-9"]


class _Handle:
    def __init__(self, engine: _Engine, turn_id: str) -> None:
        self.engine = engine
        self.id = turn_id

    @property
    def status(self) -> TurnStatus:
        return TurnStatus.SUCCEEDED

    def pending(self) -> Any:
        calls = self.engine.waits.get(self.id)
        return None if calls is None else SimpleNamespace(calls=calls)

    def decide(self, decisions: dict[str, ApprovalDecision]) -> None:
        said = [(c, str(d.kind), d.reason) for c, d in sorted(decisions.items())]
        self.engine.log.append(f"decide {self.id} {said}")


class _Engine:
    """A durable engine of the test: turns ``a-1``, ``b-1`` and ``b-2``; ``a-1`` waits."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log
        #: The turns waiting for decisions: their calls (``a-1`` waits for ``pay``).
        self.waits = {"a-1": [ToolCall(id="c-1", name="pay", arguments='{"eur": 3}')]}

    def submit(self, request: Any, *, turn_id: str | None = None) -> Any:
        raise NotImplementedError

    def turn(self, turn_id: str) -> _Handle:
        return _Handle(self, turn_id)

    def waiting(self) -> list[str]:
        return list(self.waits)

    def turn_ids(self, prefix: str) -> list[str]:
        return [t for t in ("a-1", "b-1", "b-2") if t.startswith(prefix)]

    def worker(
        self,
        *,
        concurrency: int | None = None,
        executor_id: str | None = None,
        poll_seconds: float = 1.0,
    ) -> _Worker:
        options = {"concurrency": concurrency, "executor_id": executor_id, "poll": poll_seconds}
        self.log.append(f"worker {sorted(options.items())}")
        _WORKER_HTTP_ENGINES.append(check_engine(None))  # what its models would run on
        return _Worker(self, options)

    def close(self) -> None:
        self.log.append(f"close {self.name}")


#: The HTTP engine a model made by each worker would get (``check_engine(None)``).
_WORKER_HTTP_ENGINES: list[str] = []


class _EnginePlugin:
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    @hookimpl
    def register_durable_engines(self, register: Any) -> None:
        register(self.name, lambda context: _Engine(self.name, self.log))


def _context(*engines: str, log: list[str] | None = None) -> CliContext:
    """The command's context with the test's engines registered as plugin objects."""
    settings = load_core_settings()
    plugins = {f"engine-{n}": _EnginePlugin(n, log if log is not None else []) for n in engines}
    manager = create_plugin_manager(settings, plugins)
    return CliContext(settings, manager, collect_registry(manager))


def _run(context: CliContext, *argv: str) -> int:
    """``ostinato *argv`` as the command dispatches it, errors raised."""
    args = build_parser(context, {}).parse_args(list(argv))
    code: int = args.handler(args, context)
    return code


def test_without_an_engine_both_commands_say_which_distribution_to_install(capsys):
    for command in ("worker", "approve"):
        with pytest.raises(ConfigurationError) as raised:
            _run(_context(), command)
        assert str(raised.value) == (
            f"ostinato {command} needs a durable engine, and none is installed\n"
            "fix: install one: pip install ostinato-dbos"
        )
    code, out, err = run_main(capsys, "approve", "--list")  # the installed plugins: none
    assert (code, out) == (2, "")
    assert "none is installed" in err and "pip install ostinato-dbos" in err


def test_the_one_installed_engine_is_used(capsys):
    log: list[str] = []
    assert _run(_context("fake", log=log), "approve", "--list") == 0
    assert capsys.readouterr().out == 'a-1  pay({"eur": 3})\n'
    assert _run(_context("fake", log=log), "approve", "--list", "--engine", "fake") == 0
    assert log == ["close fake", "close fake"]


def test_several_engines_need_the_engine_option_naming_one():
    for command in ("worker", "approve"):
        with pytest.raises(ConfigurationError) as raised:
            _run(_context("alpha", "beta"), command)
        assert str(raised.value) == (
            f"ostinato {command} found 2 durable engines installed: alpha, beta\n"
            f"fix: choose one with --engine: ostinato {command} --engine alpha"
        )
        with pytest.raises(ConfigurationError) as raised:
            _run(_context("alpha", "beta"), command, "--engine", "gamma")
        assert str(raised.value) == (
            "--engine gamma: no durable engine of that name is installed (installed: "
            f"alpha, beta)\nfix: name one of them: ostinato {command} --engine alpha"
        )


def test_the_worker_runs_on_the_chosen_engine_with_its_options_until_sigterm(capsys):
    log: list[str] = []
    before = signal.getsignal(signal.SIGTERM)
    context = _context("alpha", "beta", log=log)
    argv = ["worker", "--engine", "beta", "--concurrency", "3", "--poll", "0.5", "--grace", "2"]
    assert _run(context, *argv) == 0
    assert log == [
        "worker [('concurrency', 3), ('executor_id', None), ('poll', 0.5)]",
        "start",
        "stop 2.0",
        "close beta",
    ]
    assert capsys.readouterr().out == (
        "ostinato worker beta-0: taking turns from 'beta-turns'\n"
        "ostinato worker beta-0: stopped, handed back 1 turn(s)\n"
    )
    assert signal.getsignal(signal.SIGTERM) is before  # the command's handler is gone


def test_approve_decides_the_turn_a_unique_start_of_its_id_names(capsys):
    log: list[str] = []
    context = _context("alpha", "beta", log=log)
    assert _run(context, "approve", "--engine", "alpha", "a") == 0
    assert _run(context, "approve", "--engine", "beta", "a-1", "--deny", "--reason", "no") == 0
    assert capsys.readouterr().out == "approved 1 call(s) of a-1\ndenied 1 call(s) of a-1\n"
    with pytest.raises(DurableTurnError, match="the durable turn 'b-1' waits for no decision"):
        _run(context, "approve", "--engine", "alpha", "b-1")
    with pytest.raises(DurableTurnError, match="'b' starts the ids of 2 turns, none of them"):
        _run(context, "approve", "--engine", "alpha", "b")
    assert log == [
        "decide a-1 [('c-1', 'approve', None)]",
        "close alpha",
        "decide a-1 [('c-1', 'deny', 'no')]",
        "close beta",
        "close alpha",
        "close alpha",
    ]


def test_an_engine_without_the_commands_operations_is_a_clear_error():
    class Bare:
        @hookimpl
        def register_durable_engines(self, register: Any) -> None:
            register("bare", lambda context: _Bare())

    class _Bare:
        def close(self) -> None:
            pass

    settings = load_core_settings()
    manager = create_plugin_manager(settings, {"bare-engine": Bare()})
    context = CliContext(settings, manager, collect_registry(manager))
    with pytest.raises(ConfigurationError, match=r"'bare' .* cannot run ostinato approve"):
        _run(context, "approve")
    assert isinstance(_Engine("x", []), EngineOperations)
    assert not isinstance(_Bare(), EngineOperations)


def test_the_worker_runs_its_models_on_aiohttp_unless_an_engine_is_named(
    capsys, monkeypatch, tmp_path
):
    # httpx-aiohttp is installed in the workspace: a worker runs for long and pays aiohttp's
    # start-up once; OSTINATO_HTTP_ENGINE still wins, and the process's setting is restored.
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv(ENGINE_VARIABLE, raising=False)
    _WORKER_HTTP_ENGINES.clear()
    assert _run(_context("alpha"), "worker") == 0
    monkeypatch.setenv(ENGINE_VARIABLE, "httpx")
    assert _run(_context("alpha"), "worker") == 0
    assert _WORKER_HTTP_ENGINES == ["aiohttp", "httpx"]
    monkeypatch.delenv(ENGINE_VARIABLE)
    assert check_engine(None) == "httpx"
