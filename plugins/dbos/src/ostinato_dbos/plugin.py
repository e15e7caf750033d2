"""The plugin's hooks: its settings, the ``dbos`` durable engine, and the ``worker`` and
``approve`` commands. Import-light: DBOS loads only when one of them is used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import hookimpl
from ostinato_dbos._commands import APPROVE_HELP, WORKER_HELP, run_approve, run_worker
from ostinato_dbos._settings import ENV_PREFIX

if TYPE_CHECKING:
    from ostinato.plugins import FactoryContext
    from ostinato_dbos._engine import DbosEngine

__all__ = ["register_commands", "register_durable_engines", "register_settings"]


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


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato worker`` and ``ostinato approve``."""
    register("worker", WORKER_HELP, run_worker)
    register("approve", APPROVE_HELP, run_approve)
