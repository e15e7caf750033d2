"""The plugin's hooks: its settings, the ``dbos`` durable engine (which the
``ostinato worker`` and ``ostinato approve`` commands use) and the ``dbos`` unit wrapper
recording a worker's durable turns. Import-light: DBOS loads only when the engine is
used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import hookimpl
from ostinato_dbos._settings import ENV_PREFIX

if TYPE_CHECKING:
    from ostinato.plugins import FactoryContext
    from ostinato.units import UnitWrapper
    from ostinato_dbos._engine import DbosEngine

__all__ = ["register_durable_engines", "register_settings", "register_unit_wrappers"]


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_dbos.DbosSettings` under ``OSTINATO_DBOS_``."""
    from ostinato_dbos._settings import DbosSettings

    register(ENV_PREFIX, DbosSettings)


def _engine(context: FactoryContext) -> DbosEngine:
    from ostinato_dbos._engine import DbosEngine
    from ostinato_dbos._settings import DbosSettings

    return DbosEngine(context.plugin_settings(DbosSettings))


@hookimpl
def register_durable_engines(register: Any) -> None:
    """Register the ``dbos`` durable engine."""
    register("dbos", _engine)


def _unit_wrapper(context: FactoryContext) -> UnitWrapper:
    from ostinato_dbos._unit_wrapper import dbos_unit_wrapper

    return dbos_unit_wrapper()


@hookimpl
def register_unit_wrappers(register: Any) -> None:
    """Register the ``dbos`` unit wrapper (it records units only in a worker's turns)."""
    register("dbos", _unit_wrapper)
