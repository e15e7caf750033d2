"""Durable turns: the units a durable execution engine records, and the engine-neutral
way to submit a turn and wait for it (see the durable turns guide).

Core names the units of a turn (model rounds, tool calls, memory reads and writes) and
runs each through the one :data:`UnitInterceptor` an engine plugin installs; the engine
records each unit's result (as JSON) and, after a crash, replays the turn returning the
recorded results instead of running the units again. :func:`durable_engine` opens the
installed engine; :meth:`DurableEngine.submit` queues a :class:`TurnRequest` and returns a
:class:`TurnHandle`. :class:`EngineOperations` is what the ``ostinato worker`` and
``ostinato approve`` commands need of an engine. Every name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

# Every name loads on first use: the hot path imports ``ostinato.durable._units``, and
# that must not load the rest of the package with it.
if TYPE_CHECKING:
    from ostinato.durable._engines import durable_engine as durable_engine
    from ostinato.durable._memory import read_memory as read_memory
    from ostinato.durable._memory import write_memory as write_memory
    from ostinato.durable._operations import DurableWorker as DurableWorker
    from ostinato.durable._operations import EngineOperations as EngineOperations
    from ostinato.durable._runner import DecisionWaiter as DecisionWaiter
    from ostinato.durable._runner import TurnRunner as TurnRunner
    from ostinato.durable._runner import resolve_tools as resolve_tools
    from ostinato.durable._turns import DurableEngine as DurableEngine
    from ostinato.durable._turns import TurnHandle as TurnHandle
    from ostinato.durable._turns import TurnRequest as TurnRequest
    from ostinato.durable._turns import TurnStatus as TurnStatus
    from ostinato.durable._units import DurableTurnScope as DurableTurnScope
    from ostinato.durable._units import Unit as Unit
    from ostinato.durable._units import UnitInterceptor as UnitInterceptor
    from ostinato.durable._units import UnitKind as UnitKind
    from ostinato.durable._units import current_turn as current_turn
    from ostinato.durable._units import durable_turn as durable_turn
    from ostinato.durable._units import idempotency_key as idempotency_key
    from ostinato.durable._units import run_unit as run_unit
    from ostinato.durable._units import set_unit_interceptor as set_unit_interceptor
    from ostinato.durable._units import unit_interceptor as unit_interceptor
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DecisionWaiter": "ostinato.durable._runner",
            "DurableEngine": "ostinato.durable._turns",
            "DurableTurnScope": "ostinato.durable._units",
            "DurableWorker": "ostinato.durable._operations",
            "EngineOperations": "ostinato.durable._operations",
            "TurnHandle": "ostinato.durable._turns",
            "TurnRequest": "ostinato.durable._turns",
            "TurnRunner": "ostinato.durable._runner",
            "TurnStatus": "ostinato.durable._turns",
            "Unit": "ostinato.durable._units",
            "UnitInterceptor": "ostinato.durable._units",
            "UnitKind": "ostinato.durable._units",
            "current_turn": "ostinato.durable._units",
            "durable_engine": "ostinato.durable._engines",
            "durable_turn": "ostinato.durable._units",
            "idempotency_key": "ostinato.durable._units",
            "read_memory": "ostinato.durable._memory",
            "resolve_tools": "ostinato.durable._runner",
            "run_unit": "ostinato.durable._units",
            "set_unit_interceptor": "ostinato.durable._units",
            "unit_interceptor": "ostinato.durable._units",
            "write_memory": "ostinato.durable._memory",
        },
    )
