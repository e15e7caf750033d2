"""The plugin's hooks: its settings, the ``temporal`` durable engine (which the
``ostinato worker`` and ``ostinato approve`` commands use, ``--engine temporal``) and the
``temporal`` unit wrapper making each unit of a worker's turn an activity. Import-light:
the Temporal SDK loads only when the engine or a worker is used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.plugins import hookimpl
from ostinato_temporal._settings import ENV_PREFIX

if TYPE_CHECKING:
    from ostinato.plugins import FactoryContext
    from ostinato.units import UnitWrapper
    from ostinato_temporal._engine import TemporalEngine

__all__ = ["register_durable_engines", "register_settings", "register_unit_wrappers"]


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_temporal.TemporalSettings` under ``OSTINATO_TEMPORAL_``."""
    from ostinato_temporal._settings import TemporalSettings

    register(ENV_PREFIX, TemporalSettings)


def _engine(context: FactoryContext) -> TemporalEngine:
    from ostinato_temporal._engine import TemporalEngine
    from ostinato_temporal._settings import TemporalSettings

    return TemporalEngine(context.plugin_settings(TemporalSettings))


@hookimpl
def register_durable_engines(register: Any) -> None:
    """Register the ``temporal`` durable engine."""
    register("temporal", _engine)


def _unit_wrapper(context: FactoryContext) -> UnitWrapper:
    from ostinato_temporal._unit_wrapper import temporal_unit_wrapper

    return temporal_unit_wrapper()


@hookimpl
def register_unit_wrappers(register: Any) -> None:
    """Register the ``temporal`` unit wrapper (it acts only inside a turn's workflow)."""
    register("temporal", _unit_wrapper)
