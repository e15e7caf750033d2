"""Durable turns: the units a durable execution engine records, and the engine-neutral
way to submit a turn and wait for it (see the durable turns guide).

Core names the units of a turn (model rounds, tool calls, memory reads and writes) and
runs each through the one :data:`UnitInterceptor` an engine plugin installs; the engine
records each unit's result (as JSON) and, after a crash, replays the turn returning the
recorded results instead of running the units again. :func:`durable_engine` opens the
installed engine; :meth:`DurableEngine.submit` queues a :class:`TurnRequest` and returns a
:class:`TurnHandle`. The heavy parts (the runner, the engine lookup) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.durable._memory import read_memory, write_memory
from ostinato.durable._turns import DurableEngine, TurnHandle, TurnRequest, TurnStatus
from ostinato.durable._units import (
    DurableTurnScope,
    Unit,
    UnitInterceptor,
    UnitKind,
    current_turn,
    durable_turn,
    idempotency_key,
    run_unit,
    set_unit_interceptor,
    unit_interceptor,
)

if TYPE_CHECKING:
    from ostinato.durable._engines import durable_engine
    from ostinato.durable._runner import DecisionWaiter, TurnRunner, resolve_tools

__all__ = [
    "DecisionWaiter",
    "DurableEngine",
    "DurableTurnScope",
    "TurnHandle",
    "TurnRequest",
    "TurnRunner",
    "TurnStatus",
    "Unit",
    "UnitInterceptor",
    "UnitKind",
    "current_turn",
    "durable_engine",
    "durable_turn",
    "idempotency_key",
    "read_memory",
    "resolve_tools",
    "run_unit",
    "set_unit_interceptor",
    "unit_interceptor",
    "write_memory",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "durable_engine": "ostinato.durable._engines",
        "DecisionWaiter": "ostinato.durable._runner",
        "TurnRunner": "ostinato.durable._runner",
        "resolve_tools": "ostinato.durable._runner",
    },
)
