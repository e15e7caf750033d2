"""Which durable engine ``ostinato worker`` and ``ostinato approve`` use: the one
installed, or the one ``--engine NAME`` names when several are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.errors import ConfigurationError

if TYPE_CHECKING:
    from ostinato.cli._context import CliContext
    from ostinato.durable import DurableEngine, EngineOperations

__all__ = ["ENGINE_HELP", "add_engine_option", "choose_engine", "open_engine"]

#: The help line of ``--engine``.
ENGINE_HELP: Final = "the durable engine to use, when several are installed (dbos, temporal)"
#: The distribution providing the default durable engine.
_DISTRIBUTION: Final = "ostinato-dbos"


def add_engine_option(parser: Any) -> None:
    """Declare ``--engine NAME`` on ``parser``."""
    parser.add_argument("--engine", metavar="NAME", help=ENGINE_HELP)


def choose_engine(context: CliContext, name: str | None, command: str) -> str:
    """The name of the durable engine ``ostinato COMMAND`` uses.

    Raises:
        ConfigurationError: none is installed, ``name`` is not one of them, or several
            are and ``name`` is not given.
    """
    _, _, registry = context.loaded()
    engines = sorted(registry.durable_engines)
    listed = ", ".join(engines)
    if not engines:
        raise ConfigurationError(
            f"ostinato {command} needs a durable engine, and none is installed\n"
            f"fix: install one: pip install {_DISTRIBUTION}"
        )
    if name is not None:
        if name not in engines:
            raise ConfigurationError(
                f"--engine {name}: no durable engine of that name is installed "
                f"(installed: {listed})\n"
                f"fix: name one of them: ostinato {command} --engine {engines[0]}"
            )
        return name
    if len(engines) > 1:
        raise ConfigurationError(
            f"ostinato {command} found {len(engines)} durable engines installed: {listed}\n"
            f"fix: choose one with --engine: ostinato {command} --engine {engines[0]}"
        )
    return engines[0]


def open_engine(context: CliContext, name: str | None, command: str) -> EngineOperations:
    """The durable engine ``ostinato COMMAND`` uses, opened (see :func:`choose_engine`).

    Raises:
        ConfigurationError: see :func:`choose_engine`; or the engine does not offer the
            operations the commands need (:class:`~ostinato.durable.EngineOperations`).
    """
    from ostinato.config._factories import factory_context
    from ostinato.durable import EngineOperations
    from ostinato.plugins._factory_calls import call_factory

    chosen = choose_engine(context, name, command)
    settings, _, registry = context.loaded()
    registration = registry.durable_engines[chosen]
    opened = factory_context(registry, settings, None)
    engine: DurableEngine = call_factory("register_durable_engines", registration, opened)
    if not isinstance(engine, EngineOperations):
        engine.close()
        raise ConfigurationError(
            f"the durable engine {chosen!r} ({registration.plugin.label}) cannot run "
            f"ostinato {command}: it has no worker() and turn_ids()\n"
            "fix: update the plugin, or choose another engine with --engine"
        )
    return engine
