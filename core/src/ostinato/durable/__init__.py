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
:class:`ReplayedTurnLog` is the writing side of a durable turn's log: positions that stay
the same on every replay (an engine stores it; readers follow a turn by position with
:meth:`TurnHandle.events`).
:func:`decision_of` and :func:`ask_in_doubt` are what every engine does with approval
decisions. :func:`follow_up_id` and :func:`follow_up_request` name and build the turn
that runs the messages steered to a turn too late for it. :class:`EngineOperations` is
what the ``ostinato worker`` and ``ostinato approve`` commands need of an engine. Every
name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

# Every name loads on first use.
if TYPE_CHECKING:
    from ostinato.durable._decisions import ask_in_doubt as ask_in_doubt
    from ostinato.durable._decisions import decision_of as decision_of
    from ostinato.durable._engines import durable_engine as durable_engine
    from ostinato.durable._follow_up import follow_up_id as follow_up_id
    from ostinato.durable._follow_up import follow_up_request as follow_up_request
    from ostinato.durable._log import ReplayedTurnLog as ReplayedTurnLog
    from ostinato.durable._operations import DurableWorker as DurableWorker
    from ostinato.durable._operations import EngineOperations as EngineOperations
    from ostinato.durable._rebuild import arebuild_unit as arebuild_unit
    from ostinato.durable._rebuild import rebuild_unit as rebuild_unit
    from ostinato.durable._runner import DecisionWaiter as DecisionWaiter
    from ostinato.durable._runner import TurnRunner as TurnRunner
    from ostinato.durable._runner import resolve_tools as resolve_tools
    from ostinato.durable._turns import DurableEngine as DurableEngine
    from ostinato.durable._turns import SteerableTurn as SteerableTurn
    from ostinato.durable._turns import TurnHandle as TurnHandle
    from ostinato.durable._turns import TurnRequest as TurnRequest
    from ostinato.durable._turns import TurnStatus as TurnStatus
    from ostinato.durable._turns import steer_turn as steer_turn
    from ostinato.units._memory import read_memory as read_memory
    from ostinato.units._memory import write_memory as write_memory
    from ostinato.units._unit import Unit as Unit
    from ostinato.units._unit import UnitKind as UnitKind
    from ostinato.units._unit import current_turn as current_turn
    from ostinato.units._unit import durable_turn as durable_turn
    from ostinato.units._unit import idempotency_key as idempotency_key
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "arebuild_unit": "ostinato.durable._rebuild",
            "ask_in_doubt": "ostinato.durable._decisions",
            "decision_of": "ostinato.durable._decisions",
            "rebuild_unit": "ostinato.durable._rebuild",
            "Unit": "ostinato.units._unit",
            "UnitKind": "ostinato.units._unit",
            "current_turn": "ostinato.units._unit",
            "durable_turn": "ostinato.units._unit",
            "idempotency_key": "ostinato.units._unit",
            "read_memory": "ostinato.units._memory",
            "write_memory": "ostinato.units._memory",
            "DecisionWaiter": "ostinato.durable._runner",
            "ReplayedTurnLog": "ostinato.durable._log",
            "DurableEngine": "ostinato.durable._turns",
            "DurableWorker": "ostinato.durable._operations",
            "EngineOperations": "ostinato.durable._operations",
            "TurnHandle": "ostinato.durable._turns",
            "TurnRequest": "ostinato.durable._turns",
            "TurnRunner": "ostinato.durable._runner",
            "TurnStatus": "ostinato.durable._turns",
            "SteerableTurn": "ostinato.durable._turns",
            "steer_turn": "ostinato.durable._turns",
            "durable_engine": "ostinato.durable._engines",
            "follow_up_id": "ostinato.durable._follow_up",
            "follow_up_request": "ostinato.durable._follow_up",
            "resolve_tools": "ostinato.durable._runner",
        },
    )
