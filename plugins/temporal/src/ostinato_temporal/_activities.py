"""The activity ``ostinato.unit``: one unit of a turn, rebuilt from its description on
the worker's auto-configured client and run there.

The workflow sends the unit's kind, name, sequence and description, and the turn's tool
names; the activity rebuilds the unit (:func:`ostinato.durable.arebuild_unit`) on the
worker's client given those tools, under ``durable_turn(turn_id)`` with the unit's own
sequence (so a tool reads the same :func:`~ostinato.durable.idempotency_key` on every
attempt), runs it through the client's unit stack, and returns its JSON result. While it
runs it heartbeats, so that a worker killed in the middle of it is noticed within the
heartbeat timeout and the unit runs again on another worker. A unit that fails is not
retried: its error (class name and text) ends the turn as in process; only a unit whose
worker went away runs again. A guarded tool call (a side-effecting or destructive one,
``payload["guard"] == "call"``) does not: on any attempt but the first it returns
``{"in_doubt": true}`` without running, and its outcome is wrapped (``{"outcome": ...}``);
in the ``reconcile`` mode the activity asks the rebuilt call's reconcile hook instead of
running it (see :mod:`ostinato_temporal._guard`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from typing import TYPE_CHECKING, Any

from temporalio import activity

from ostinato_temporal._connection import UNIT_ACTIVITY

if TYPE_CHECKING:
    from ostinato.client import ChatClient
    from ostinato.durable import TurnRunner

__all__ = ["configure_activities", "in_flight", "run_unit"]


class _Worker:
    runner: TurnRunner | None = None
    clients: dict[tuple[str, ...], ChatClient] = {}  # noqa: RUF012 - process state
    running: Counter[str] = Counter()  # noqa: RUF012 - process state


def configure_activities(runner: TurnRunner) -> None:
    """Give this process's unit activities their runner (the worker's client)."""
    _Worker.runner = runner
    _Worker.clients = {}


def in_flight() -> list[str]:
    """The ids of the turns whose units run in this process now."""
    return [turn for turn, count in _Worker.running.items() if count > 0]


def _client(tools: tuple[str, ...]) -> ChatClient:
    runner = _Worker.runner
    if runner is None:
        raise RuntimeError(
            "a unit of a durable turn ran in a process that is not an ostinato worker\n"
            "fix: run turns with `ostinato worker --engine temporal` "
            "(or ostinato_temporal.Worker)"
        )
    client = _Worker.clients.get(tools)
    if client is None:
        client = runner.client
        if tools:
            client = client.mutate().default_tools(*runner.tools(tools)).build()
        _Worker.clients[tools] = client
    return client


async def _heartbeat(period: float) -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(period)


@activity.defn(name=UNIT_ACTIVITY)
async def run_unit(payload: dict[str, Any]) -> Any:
    """Rebuild and run one unit (see the module's docstring); its JSON result."""
    from temporalio.exceptions import ApplicationError

    from ostinato.durable import arebuild_unit, durable_turn

    info = activity.info()
    guard = payload.get("guard")
    if guard == "call" and info.attempt > 1:
        # An earlier attempt was handed to a worker that never reported back.
        return {"in_doubt": True}
    turn_id = str(payload["turn"])
    beating: asyncio.Task[None] | None = None
    if not info.is_local and info.heartbeat_timeout:
        beating = asyncio.create_task(_heartbeat(info.heartbeat_timeout.total_seconds() / 4))
    _Worker.running[turn_id] += 1
    try:
        client = _client(tuple(payload.get("tools", ())))
        with durable_turn(turn_id):
            unit = await arebuild_unit(
                payload["kind"],
                payload["name"],
                payload["description"],
                client,
                sequence=int(payload["sequence"]),
            )
            if guard == "reconcile":
                from ostinato.units import ToolInvocation, ask_reconcile_hook

                assert isinstance(unit, ToolInvocation)
                return await ask_reconcile_hook(unit)
            result = await client.units.run(unit)
        if guard == "call":
            return {"outcome": unit.encode(result)}
        return unit.encode(result)
    except Exception as error:
        # The unit's own failure ends the turn (as in process): never retried.
        raise ApplicationError(
            f"{type(error).__name__}: {error}", type=type(error).__name__, non_retryable=True
        ) from None
    finally:
        _Worker.running[turn_id] -= 1
        if beating is not None:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
