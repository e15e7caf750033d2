"""The ``dbos`` unit wrapper: in a worker's durable turn, each unit is a DBOS step.

Registered through ``register_unit_wrappers`` at :attr:`~ostinato.units.UnitOrder.DURABLE`
for every kind of unit, so it is in the stack of every auto-configured client where the
plugin is installed. It acts only in a process running turns (a started
:class:`~ostinato_dbos.Worker`), on a unit of a durable turn itself (not of code running
inside another unit): the unit runs as a step recording its JSON result, or, replayed,
returns the recorded result without running (a streamed round records its aggregate).
A side-effecting or destructive tool call is guarded (``ostinato.units.run_guarded``):
marked in doubt in a step of its own before it runs, so a crash never runs it twice
silently.
Everywhere else it passes the unit on. Import-light: DBOS loads only when a step runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from ostinato.units import Unit, UnitOrder, UnitWrapper

if TYPE_CHECKING:
    from ostinato.model import ChatResponse
    from ostinato.units import ModelStream

__all__ = ["WRAPPER_NAME", "activate", "dbos_unit_wrapper"]

#: The wrapper's name in a client's unit stack.
WRAPPER_NAME: Final = "dbos"


class _State:
    active = False


def activate(active: bool) -> None:
    """Turn the wrapper on in this process (a worker that started) or off (it stopped)."""
    _State.active = active


async def _around(unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
    if not _State.active or not unit.durable:
        return await next(unit)
    from ostinato.units import ToolInvocation, in_doubt_rule

    if isinstance(unit, ToolInvocation):  # a tool call: guarded when its effect says so
        rule = in_doubt_rule(unit)
        if rule is not None:
            from ostinato_dbos._workflow import guarded_unit

            return await guarded_unit(unit, next, rule)
    from ostinato_dbos._workflow import dbos_unit

    return await dbos_unit(unit, next)


def _around_stream(
    unit: ModelStream, next: Callable[[ModelStream], AsyncIterator[ChatResponse]]
) -> AsyncIterator[ChatResponse]:
    if not _State.active or not unit.durable:
        return next(unit)
    from ostinato.units import recorded_stream

    return recorded_stream(unit, next, _around)


def dbos_unit_wrapper() -> UnitWrapper:
    """The wrapper (see the module's docstring)."""
    wrapper = UnitWrapper.of_all(WRAPPER_NAME, UnitOrder.DURABLE, _around)
    return UnitWrapper(wrapper.name, wrapper.order, wrapper.kinds, wrapper.around, _around_stream)
