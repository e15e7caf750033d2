"""Durable turns: the engine-neutral way to submit a turn and wait for it (see the durable
turns guide).

The units of a turn (model rounds, tool calls, memory reads and writes) are values of
:mod:`ostinato.units`; an engine plugin registers a unit wrapper
(``register_unit_wrappers``) that records each unit's result (as JSON) in a durable turn
and, after a crash, replays the turn returning the recorded results instead of running
the units again. :func:`durable_turn`, :func:`current_turn` and :func:`idempotency_key`
are those of :mod:`ostinato.units`. :func:`durable_engine` opens the
installed engine; :meth:`DurableEngine.submit` queues a :class:`TurnRequest` and returns a
:class:`TurnHandle`. :func:`rebuild_unit` rebuilds a unit from its description on
another process's client (an engine running units away from their turn).
:class:`EngineOperations` is what the ``ostinato worker`` and
``ostinato approve`` commands need of an engine. Every name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports

if TYPE_CHECKING:
    from ostinato.durable._engines import durable_engine
    from ostinato.durable._operations import DurableWorker, EngineOperations
    from ostinato.durable._rebuild import arebuild_unit, rebuild_unit
    from ostinato.durable._runner import DecisionWaiter, TurnRunner, resolve_tools
    from ostinato.durable._turns import DurableEngine, TurnHandle, TurnRequest, TurnStatus
    from ostinato.units import (
        Unit,
        UnitKind,
        current_turn,
        durable_turn,
        idempotency_key,
        read_memory,
        write_memory,
    )

__all__ = [
    "DecisionWaiter",
    "DurableEngine",
    "DurableWorker",
    "EngineOperations",
    "TurnHandle",
    "TurnRequest",
    "TurnRunner",
    "TurnStatus",
    "Unit",
    "UnitKind",
    "arebuild_unit",
    "current_turn",
    "durable_engine",
    "durable_turn",
    "idempotency_key",
    "read_memory",
    "rebuild_unit",
    "resolve_tools",
    "write_memory",
]

# Every name loads on first use.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DecisionWaiter": "ostinato.durable._runner",
        "DurableEngine": "ostinato.durable._turns",
        "DurableWorker": "ostinato.durable._operations",
        "EngineOperations": "ostinato.durable._operations",
        "TurnHandle": "ostinato.durable._turns",
        "TurnRequest": "ostinato.durable._turns",
        "TurnRunner": "ostinato.durable._runner",
        "TurnStatus": "ostinato.durable._turns",
        "Unit": "ostinato.units._unit",
        "UnitKind": "ostinato.units._unit",
        "arebuild_unit": "ostinato.durable._rebuild",
        "current_turn": "ostinato.units._unit",
        "durable_engine": "ostinato.durable._engines",
        "durable_turn": "ostinato.units._unit",
        "idempotency_key": "ostinato.units._unit",
        "read_memory": "ostinato.units._memory",
        "rebuild_unit": "ostinato.durable._rebuild",
        "resolve_tools": "ostinato.durable._runner",
        "write_memory": "ostinato.units._memory",
    },
)
